package beam.daemon;

import beam.util.Versions;
import beam.cluster.NodeAccelerator;
import beam.node.HostLimits;
import beam.codec.FrameCodec;
import beam.config.Environment;
import beam.protocol.Protocol;
import beam.util.Scheduler;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;


/**
 * Collects the facts a node tells the head about its host at join (the head keeps them as
 * {@code cluster/HostFacts}; later ones come as {@code LinkMessage.HostFactsUpdate}), for diagnostics (`ray status`,
 * `ray doctor`): versions (beam, protocol, Java, Python and, where installed, vLLM and
 * torch), its network interfaces and which one carries the node IP, and its accelerators
 * (kind, vendor, model, ids, the visibility variable the node was started with), and its
 * shared memory, limits and NCCL/Gloo/vLLM variables ({@link HostLimits}). The Python versions come from the interpreter that ran `ray`
 * ({@code BEAM_PYTHON}, set by the launcher: ray._beam.launch.launcher.daemon_env), asked once in the
 * background shortly after start.
 */
public final class HostFactsCollector {
    static final long PROBE_DELAY_MS = 500;
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
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
    static CompletableFuture<JsonNode> pythonVersions(Environment env) {
        // the probe waits for a process: on a thread of its own, not the scheduler's
        Executor later = task -> Scheduler.system().after(PROBE_DELAY_MS, () -> Thread.ofVirtual().start(task));
        return CompletableFuture.supplyAsync(() -> {
            String python = env.python();
            try {
                Process p = new ProcessBuilder(python, "-c", PROBE).redirectErrorStream(true).start();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) return F.objectNode().putNull("python");
                return FrameCodec.json().readTree(out.trim());
            } catch (IOException e) {
                return F.objectNode().putNull("python");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return F.objectNode().putNull("python");
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

    static ObjectNode collect(String nodeIp, Map<String, NodeAccelerator> accelerators, Environment env) {
        ObjectNode facts = F.objectNode();
        ObjectNode versions = facts.putObject("versions");
        versions.put("beam", Versions.BEAM);
        versions.put("protocol", Protocol.VERSION);
        versions.put("java", Runtime.version().toString());
        ArrayNode nics = facts.putArray("interfaces");
        String carrier = null;
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!nic.isUp()) continue;
                ObjectNode o = nics.addObject();
                o.put("name", nic.getName());
                ArrayNode addrs = o.putArray("addresses");
                for (InetAddress a : Collections.list(nic.getInetAddresses())) {
                    if (!(a instanceof Inet4Address)) continue;
                    addrs.add(a.getHostAddress());
                    if (a.getHostAddress().equals(nodeIp)) carrier = nic.getName();
                }
                if (carrier == null && nic.isLoopback() && isLoopback(nodeIp)) carrier = nic.getName();
            }
        } catch (IOException ignored) {
            // no interface list
        }
        facts.put("node_ip_interface", carrier);
        // what each accelerator is and the visibility variable the node itself was started with
        ObjectNode accel = facts.putObject("accelerators");
        accelerators.forEach((resource, a) -> {
            ObjectNode o = a.toJson();
            o.put("node_visible_value", env.get(a.kind().visibleVar));
            accel.set(resource, o);
        });
        facts.set("host_limits", HostLimits.read(env));
        return facts;
    }
}
