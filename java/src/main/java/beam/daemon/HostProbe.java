package beam.daemon;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/** What this machine has: GPUs, memory, and the IP address other hosts reach it on. */
final class HostProbe {
    private static final Pattern NVIDIA_DEVICE = Pattern.compile("nvidia[0-9]+");

    private HostProbe() {
    }

    /**
     * GPU ids as this node names them: {@code CUDA_VISIBLE_DEVICES} entries if set (Ray
     * honours it), else 0..n-1. With {@code declared} set, that many ids; else detected from
     * /dev/nvidiaN device files or {@code nvidia-smi -L}.
     */
    static List<String> gpuIds(Integer declared, String cudaVisible) {
        List<String> visible = new ArrayList<>();
        if (cudaVisible != null) {
            for (String s : cudaVisible.split(",")) if (!s.isBlank()) visible.add(s.trim());
        }
        int count;
        if (declared != null) count = declared;
        else if (cudaVisible != null) count = visible.size();
        else count = detectGpuCount();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) ids.add(i < visible.size() ? visible.get(i) : String.valueOf(i));
        return ids;
    }

    /** Detected once per process: start-up asks several times, and nvidia-smi can take a second. */
    private static volatile Integer detectedGpus;

    private static int detectGpuCount() {
        Integer n = detectedGpus;
        if (n == null) detectedGpus = n = probeGpuCount();
        return n;
    }

    private static int probeGpuCount() {
        String[] devs = new java.io.File("/dev").list((d, name) -> NVIDIA_DEVICE.matcher(name).matches());
        if (devs != null && devs.length > 0) return devs.length;
        try {
            Process p = new ProcessBuilder("nvidia-smi", "-L").redirectErrorStream(true).start();
            int n = 0;
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream()))) {
                String line;
                while ((line = r.readLine()) != null) if (line.startsWith("GPU ")) n++;
            }
            p.waitFor(5, TimeUnit.SECONDS);
            return n;
        } catch (IOException e) {
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }

    static List<String> gpuIds(DaemonConfig config) {
        return gpuIds(config.numGpus(), System.getenv("CUDA_VISIBLE_DEVICES"));
    }

    /**
     * This node's resources, named as Ray names them: CPU, GPU, memory (70% of available),
     * object_store_memory (30%), node:IP, node:__internal_head__ on the head, and custom
     * resources from --resources.
     */
    static beam.cluster.Resources resources(DaemonConfig config, String nodeIp, boolean head) {
        beam.cluster.Resources r = beam.cluster.Resources.fromJson(parseResources(config.resourcesJson()), "--resources");
        long unit = beam.cluster.Resources.UNIT;
        int cpus = config.numCpus() != null ? config.numCpus() : Runtime.getRuntime().availableProcessors();
        r.set("CPU", (long) cpus * unit);
        r.set("GPU", (long) gpuIds(config).size() * unit);
        long mem = availableMemoryBytes();
        long objectStore = (long) (mem * 0.3);
        r.set("memory", (mem - objectStore) * unit);
        r.set("object_store_memory", objectStore * unit);
        r.set("node:" + nodeIp, unit);
        if (head) r.set("node:__internal_head__", unit);
        return r;
    }

    static com.fasterxml.jackson.databind.JsonNode parseResources(String json) {
        if (json == null || json.isBlank()) return null;
        try {
            return beam.codec.FrameCodec.json().readTree(json);
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
            for (var nic : java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces())) {
                if (!nic.isUp() || nic.isLoopback()) continue;
                for (InetAddress a : java.util.Collections.list(nic.getInetAddresses())) {
                    if (a instanceof java.net.Inet4Address) return a.getHostAddress();
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
