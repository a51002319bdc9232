package beam.daemon;

import beam.cluster.AcceleratorKind;
import beam.cluster.NodeAccelerator;
import beam.cluster.Resources;
import beam.codec.FrameCodec;
import beam.config.Environment;
import beam.node.AcceleratorProbe;
import beam.protocol.ResourceJson;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/** What this machine has: accelerators, memory, and the IP address other hosts reach it on. */
final class HostProbe {
    private HostProbe() {
    }

    /**
     * This node's accelerators by resource (GPU, NPU, HPU, neuron_cores, ...): counts from
     * --num-gpus / --resources where declared, else detected; ids from a visibility variable
     * set on `ray start`, else 0..n-1 ({@link AcceleratorProbe}).
     */
    static Map<String, NodeAccelerator> accelerators(DaemonConfig config) {
        Environment env = config.environment();
        Map<String, Integer> declared = new HashMap<>();
        if (config.numGpus() != null) declared.put("GPU", config.numGpus());
        JsonNode custom = parseResources(config.resourcesJson());
        for (String r : AcceleratorKind.RESOURCES) {
            if (custom != null && custom.path(r).isNumber()) declared.put(r, (int) Math.floor(custom.path(r).asDouble()));
        }
        return new AcceleratorProbe(env.deviceRoot(), env.vars()).probe(declared);
    }

    /**
     * This node's resources, named as Ray names them: CPU, GPU, memory (70% of available),
     * object_store_memory (30%), node:IP, node:__internal_head__ on the head, custom
     * resources from --resources, each accelerator's count and accelerator_type:MODEL.
     */
    static Resources resources(DaemonConfig config, String nodeIp, boolean head,
                                            Map<String, NodeAccelerator> accelerators) {
        Resources r = Resources.of(ResourceJson.read(parseResources(config.resourcesJson()), "--resources"), "--resources");
        long unit = Resources.UNIT;
        int cpus = config.numCpus() != null ? config.numCpus() : Runtime.getRuntime().availableProcessors();
        r.set("CPU", (long) cpus * unit);
        r.set("GPU", 0);
        accelerators.forEach((name, a) -> {
            if (r.get(name) == 0) r.set(name, (long) a.ids().size() * unit);
            if (a.type() != null) r.set("accelerator_type:" + a.type(), unit); // as Ray adds it
        });
        long mem = availableMemoryBytes();
        long objectStore = (long) (mem * 0.3);
        r.set("memory", (mem - objectStore) * unit);
        r.set("object_store_memory", objectStore * unit);
        r.set("node:" + nodeIp, unit);
        if (head) r.set("node:__internal_head__", unit);
        return r;
    }

    static JsonNode parseResources(String json) {
        if (json == null || json.isBlank()) return null;
        try {
            return FrameCodec.json().readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException("--resources must be a JSON object such as '{\"TPU\": 4}', got: " + json);
        }
    }

    /** MemAvailable from /proc/meminfo in bytes (0 if unknown). */
    static long availableMemoryBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemAvailable:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException ignored) {
            // fall through
        }
        return Runtime.getRuntime().maxMemory();
    }

    /**
     * The local address of the route toward {@code target} (as Ray does: no packet is
     * sent, a UDP connect only picks the route), falling back to 127.0.0.1.
     */
    static String routeAddress(String targetHost) {
        try (DatagramSocket s = new DatagramSocket()) {
            s.connect(new InetSocketAddress(InetAddress.getByName(targetHost), 53));
            InetAddress local = s.getLocalAddress();
            if (local != null && !local.isAnyLocalAddress()) return local.getHostAddress();
        } catch (IOException ignored) {
            // no route: fall back to the first address of an interface that is up
        }
        return firstInterfaceAddress();
    }

    /** The first IPv4 address of an up, non-loopback interface, else 127.0.0.1. */
    static String firstInterfaceAddress() {
        try {
            for (var nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!nic.isUp() || nic.isLoopback()) continue;
                for (InetAddress a : Collections.list(nic.getInetAddresses())) {
                    if (a instanceof Inet4Address) return a.getHostAddress();
                }
            }
        } catch (IOException ignored) {
            // none
        }
        return "127.0.0.1";
    }

    static String hostname() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }
}
