package beam.daemon;

import beam.codec.FrameCodec;
import beam.dispatch.Session;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;


/**
 * What a node tells the head about itself at join, for diagnostics (`ray status`,
 * `ray doctor`): versions (beam, protocol, Java, Python and, where installed, vLLM and
 * torch), its network interfaces and which one carries the node IP, and its accelerators
 * (kind, vendor, model, ids, the visibility variable the node was started with). The Python versions come from the interpreter that ran `ray`
 * ({@code BEAM_PYTHON}, set by the launcher: ray._beam.launch.launcher.daemon_env), asked once in the
 * background shortly after start.
 */
public final class NodeFacts {
    public static final String BEAM_VERSION = "0.1.0";
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

    private NodeFacts() {
    }

    /**
     * Asks Python for its versions, {@link #PROBE_DELAY_MS} from now: a Python start competes
     * for the CPU with the daemon's own start-up and with the first driver, and nothing needs
     * the answer that early. With one of 2 cores busy elsewhere, deferring it took `ray start`
     * from 0.336 to 0.305 s and the first ray.init() after it from 0.123 to 0.072 s
     * (bench/start_time.py, medians of 9); on a quiet machine it changes nothing measurable.
     */
    static CompletableFuture<JsonNode> pythonVersions() {
        Executor later = CompletableFuture.delayedExecutor(PROBE_DELAY_MS, TimeUnit.MILLISECONDS,
                r -> Thread.ofVirtual().start(r));
        return CompletableFuture.supplyAsync(() -> {
            String python = System.getenv().getOrDefault("BEAM_PYTHON", "python3");
            try {
                Process p = new ProcessBuilder(python, "-c", PROBE).redirectErrorStream(true).start();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) return F.objectNode();
                return FrameCodec.json().readTree(out.trim());
            } catch (IOException e) {
                return F.objectNode();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return F.objectNode();
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

    static ObjectNode collect(String nodeIp, java.util.Map<String, beam.cluster.NodeAccelerator> accelerators) {
        ObjectNode facts = F.objectNode();
        ObjectNode versions = facts.putObject("versions");
        versions.put("beam", BEAM_VERSION);
        versions.put("protocol", Session.PROTOCOL_VERSION);
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
            o.put("node_visible_value", System.getenv(a.kind().visibleVar));
            accel.set(resource, o);
        });
        return facts;
    }
}
