package beam.daemon;

import beam.util.Versions;
import beam.cluster.NodeAccelerator;
import beam.node.HostLimits;
import beam.codec.FrameCodec;
import beam.config.Environment;
import beam.protocol.FactsCodec;
import beam.protocol.Protocol;
import beam.util.HostFacts;
import beam.util.Scheduler;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;


/**
 * Collects the facts a node tells the head about its host at join (the head keeps them as
 * {@code util/HostFacts}; later ones come each as its own link message: {@code HttpPorts},
 * {@code Telemetry}, {@code NodeVersions}), for diagnostics (`ray status`, `ray doctor`): versions (beam, protocol, Java, Python and, where installed, vLLM and
 * torch), its network interfaces and which one carries the node IP, and its accelerators
 * (kind, vendor, model, ids, the visibility variable the node was started with), and its
 * shared memory, limits and NCCL/Gloo/vLLM variables ({@link HostLimits}). The Python versions come from the interpreter that ran `ray`
 * ({@code BEAM_PYTHON}, set by the launcher: ray._beam.launch.launcher.daemon_env), asked once in the
 * background shortly after start.
 */
public final class HostFactsCollector {
    static final long PROBE_DELAY_MS = 500;
    /** The versions of a Python that could not be run: asked, and none known. */
    private static final Map<String, String> NO_PYTHON = Collections.singletonMap("python", null);
    private static final String PROBE = String.join("\n",
            "import json, sys",
            "from importlib import metadata",
            "def v(name):",
            "    try:",
            "        return metadata.version(name)",
            "    except Exception:",
            "        return None",
            "print(json.dumps({'python': '%d.%d.%d' % sys.version_info[:3], 'vllm': v('vllm'), 'torch': v('torch'),",
            "                  'cloudpickle': v('cloudpickle')}))");

    private HostFactsCollector() {
    }

    /**
     * Asks Python for its versions, {@link #PROBE_DELAY_MS} from now: a Python start competes
     * for the CPU with the daemon's own start-up and with the first driver, and nothing needs
     * the answer that early (a busy host's `ray start` and first ray.init() were measurably
     * slower without the delay: docs/PERFORMANCE.md).
     */
    static CompletableFuture<Map<String, String>> pythonVersions(Environment env) {
        // the probe waits for a process: on a thread of its own, not the scheduler's
        Executor later = task -> Scheduler.system().after(PROBE_DELAY_MS, () -> Thread.ofVirtual().start(task));
        return CompletableFuture.supplyAsync(() -> {
            String python = env.python();
            try {
                Process p = new ProcessBuilder(python, "-c", PROBE).redirectErrorStream(true).start();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) return NO_PYTHON;
                return FactsCodec.versions(FrameCodec.json().readTree(out.trim()));
            } catch (IOException e) {
                return NO_PYTHON;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return NO_PYTHON;
            }
        }, later);
    }

    /**
     * Everything but the Python versions, which arrive later (asking Python takes ~100 ms and
     * start-up does not wait for it): see {@link #pythonVersions()}.
     */
    private static boolean isLoopback(String ip) {
        return ip.startsWith("127.");
    }

    /** {@code probePort}/{@code probeError}: where other nodes' reachability probes connect, or -1 and why not. */
    static HostFacts collect(String nodeIp, Map<String, NodeAccelerator> accelerators, Environment env,
                             int probePort, String probeError) {
        Map<String, String> versions = new LinkedHashMap<>();
        versions.put("beam", Versions.BEAM);
        versions.put("protocol", String.valueOf(Protocol.VERSION));
        versions.put("java", Runtime.version().toString());
        List<HostFacts.Interface> nics = new ArrayList<>();
        String carrier = null;
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!nic.isUp()) continue;
                List<String> addrs = new ArrayList<>();
                for (InetAddress a : Collections.list(nic.getInetAddresses())) {
                    if (!(a instanceof Inet4Address)) continue;
                    addrs.add(a.getHostAddress());
                    if (a.getHostAddress().equals(nodeIp)) carrier = nic.getName();
                }
                nics.add(new HostFacts.Interface(nic.getName(), addrs));
                if (carrier == null && nic.isLoopback() && isLoopback(nodeIp)) carrier = nic.getName();
            }
        } catch (IOException ignored) {
            // no interface list
        }
        // what each accelerator is and the visibility variable the node itself was started with
        Map<String, HostFacts.Accelerator> accel = new LinkedHashMap<>();
        accelerators.forEach((resource, a) -> accel.put(resource, a.describe(env.get(a.kind().visibleVar))));
        return new HostFacts(versions, nics, carrier, accel, probePort, probeError, null, null, HostLimits.read(env));
    }
}
