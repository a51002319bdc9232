package beam.node;

import beam.config.Environment;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;

/**
 * The host settings that break vLLM across hosts without an error of their own, as this
 * daemon found them at start (its actors inherit them): the size of the shared-memory
 * filesystem vLLM and NCCL put their buffers in, the soft limits on open files and locked
 * memory, and the NCCL / Gloo / vLLM variables of the daemon's environment. A node reports
 * them with its facts; {@code views/HostChecks} judges them.
 */
public final class HostLimits {
    /** Unlimited, as a limit's value. */
    public static final long UNLIMITED = -1;
    /** Exact names reported besides every {@code NCCL_*} variable. */
    static final List<String> VARIABLES = List.of("GLOO_SOCKET_IFNAME", "VLLM_HOST_IP");
    static final int MAX_VARIABLES = 32;
    static final int MAX_VALUE = 200;
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private HostLimits() {
    }

    /** {@code host_limits} of a node's facts: {@code shm_bytes}, {@code open_files}, {@code locked_memory}, {@code rdma_devices}, {@code env}. */
    public static ObjectNode read(Environment env) {
        ObjectNode o = F.objectNode();
        Path shm = env.shmPath();
        o.put("shm_path", shm.toString());
        try {
            o.put("shm_bytes", Files.getFileStore(shm).getTotalSpace());
        } catch (IOException e) {
            o.put("shm_error", "cannot read the size of " + shm + ": " + e);
        }
        Path limits = env.limitsPath();
        try {
            List<String> lines = Files.readAllLines(limits);
            o.put("open_files", softLimit(lines, "Max open files"));
            o.put("locked_memory", softLimit(lines, "Max locked memory"));
        } catch (IOException | IllegalArgumentException e) {
            o.put("limits_error", "cannot read " + limits + ": " + e.getMessage());
        }
        o.put("rdma_devices", rdmaDevices(env.deviceRoot()));
        TreeMap<String, String> vars = new TreeMap<>();
        env.vars().forEach((k, v) -> {
            if (k.startsWith("NCCL_") || VARIABLES.contains(k)) vars.put(k, v);
        });
        // the facts ride in the join, whose header the head caps (16 KiB): bounded here
        ObjectNode out = o.putObject("env");
        vars.entrySet().stream().limit(MAX_VARIABLES).forEach(e -> out.put(e.getKey(), e.getValue().length() <= MAX_VALUE
                ? e.getValue() : e.getValue().substring(0, MAX_VALUE) + "..."));
        if (vars.size() > MAX_VARIABLES) o.put("env_left_out", vars.size() - MAX_VARIABLES);
        return o;
    }

    /**
     * How many RDMA devices (InfiniBand, RoCE) the host has: the entries of
     * /sys/class/infiniband under {@code root} ("/" but in tests). NCCL pins memory only over
     * RDMA, so a locked-memory limit matters only where there are some; 0 if the folder is absent.
     */
    static int rdmaDevices(Path root) {
        try (var entries = Files.list(root.resolve("sys/class/infiniband"))) {
            return (int) Math.min(entries.count(), 1024);
        } catch (IOException e) {
            return 0;
        }
    }

    /**
     * The soft limit of {@code name} in /proc's limits table ("Max open files  1024  4096
     * files"), {@link #UNLIMITED} for "unlimited".
     */
    static long softLimit(List<String> lines, String name) {
        for (String line : lines) {
            if (!line.startsWith(name + " ")) continue;
            String[] cols = line.substring(name.length()).trim().split("\\s+");
            if (cols[0].equals("unlimited")) return UNLIMITED;
            try {
                return Long.parseLong(cols[0]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("its \"" + name + "\" soft limit is not a number: " + cols[0]);
            }
        }
        throw new IllegalArgumentException("it has no \"" + name + "\" line");
    }
}
