package beam.node;

import beam.config.Environment;
import beam.util.HostFacts.Limits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The host settings that break vLLM across hosts without an error of their own, as this
 * daemon found them at start (its actors inherit them): the size of the shared-memory
 * filesystem vLLM and NCCL put their buffers in, the soft limits on open files and locked
 * memory, and the NCCL / Gloo / vLLM variables of the daemon's environment. A node reports
 * them with its facts ({@code util/HostFacts.Limits}); {@code views/HostChecks} judges them.
 */
public final class HostLimits {
    /** Unlimited, as a limit's value. */
    public static final long UNLIMITED = Limits.UNLIMITED;
    /** Exact names reported besides every {@code NCCL_*} variable. */
    static final List<String> VARIABLES = List.of("GLOO_SOCKET_IFNAME", "VLLM_HOST_IP");
    static final int MAX_VARIABLES = 32;
    static final int MAX_VALUE = 200;

    private HostLimits() {
    }

    /** What this host's limits are: {@code HostFacts.Limits}, each value or why it could not be read. */
    public static Limits read(Environment env) {
        Path shm = env.shmPath();
        Long shmBytes = null;
        String shmError = null;
        try {
            shmBytes = Files.getFileStore(shm).getTotalSpace();
        } catch (IOException e) {
            shmError = "cannot read the size of " + shm + ": " + e;
        }
        Path limits = env.limitsPath();
        Long openFiles = null;
        Long lockedMemory = null;
        String limitsError = null;
        try {
            List<String> lines = Files.readAllLines(limits);
            openFiles = softLimit(lines, "Max open files");
            lockedMemory = softLimit(lines, "Max locked memory");
        } catch (IOException | IllegalArgumentException e) {
            limitsError = "cannot read " + limits + ": " + e.getMessage();
        }
        TreeMap<String, String> vars = new TreeMap<>();
        env.vars().forEach((k, v) -> {
            if (k.startsWith("NCCL_") || VARIABLES.contains(k)) vars.put(k, v);
        });
        // the facts ride in the join, whose header the head caps (16 KiB): bounded here
        Map<String, String> kept = new TreeMap<>();
        vars.entrySet().stream().limit(MAX_VARIABLES).forEach(e -> kept.put(e.getKey(), e.getValue().length() <= MAX_VALUE
                ? e.getValue() : e.getValue().substring(0, MAX_VALUE) + "..."));
        return new Limits(shm.toString(), shmBytes, shmError, openFiles, lockedMemory, limitsError,
                rdmaDevices(env.deviceRoot()), kept, vars.size() > MAX_VARIABLES ? vars.size() - MAX_VARIABLES : null);
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
