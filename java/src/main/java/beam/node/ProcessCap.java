package beam.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How many actor processes one node runs at once. Without a cap a runaway loop of actor
 * creations forks workers until the host is out of memory or pids and takes down
 * everything on it (the daemon, sshd, other users' jobs); with one, the creation past it
 * fails with an error that names the cap and the flag that raises it.
 *
 * <p>The default is the smaller of the host's memory over {@link #BYTES_PER_PROCESS} and
 * its pid limit over {@link #TASKS_PER_PROCESS}: an idle worker takes ~13 MB and a handful
 * of threads, so the cap sits far above what real actors (GBs each) ever reach and well
 * below where the host falls over.
 */
public record ProcessCap(int limit, String source) {
    /** Memory set aside per actor process for the default: five times an idle worker's. */
    static final long BYTES_PER_PROCESS = 64L << 20;
    /** Pids (threads) counted per actor process for the default: an idle worker has ~6. */
    static final int TASKS_PER_PROCESS = 16;
    /** The flag that sets the cap. */
    public static final String FLAG = "--max-actor-processes";

    public ProcessCap {
        if (limit < 1) throw new IllegalArgumentException(FLAG + " must be >= 1, got " + limit);
    }

    /** {@code flag} when given (> 0), else the default this host allows. */
    public static ProcessCap of(int flag) {
        if (flag > 0) return new ProcessCap(flag, FLAG + " " + flag);
        long memory = memoryBytes();
        long pids = pidLimit();
        long byMemory = memory / BYTES_PER_PROCESS;
        long byPids = pids / TASKS_PER_PROCESS;
        long limit = Math.max(1, Math.min(byMemory, byPids));
        String source = byMemory <= byPids
                ? "the default for this host: " + (memory >> 20) + " MiB of memory / " + (BYTES_PER_PROCESS >> 20) + " MiB"
                : "the default for this host: a limit of " + pids + " pids / " + TASKS_PER_PROCESS;
        return new ProcessCap((int) Math.min(Integer.MAX_VALUE, limit), source);
    }

    /** The death message of an actor refused because {@code running} processes run already. */
    String refusal(int running) {
        return "this node already runs " + running + " actor processes, its limit (" + source + "). Kill actors you no "
                + "longer need, or start the node with `ray start " + FLAG + " N` to allow more.";
    }

    /** The host's memory, or the cgroup's limit when it is lower (a container). */
    static long memoryBytes() {
        long host = meminfoTotal();
        long cgroup = lowest(readLong(Path.of("/sys/fs/cgroup/memory.max")),
                readLong(Path.of("/sys/fs/cgroup/memory/memory.limit_in_bytes"))); // cgroup v2, v1
        return cgroup > 0 && cgroup < host ? cgroup : host;
    }

    /** The lowest of the kernel's pid_max and the cgroup's pids.max. */
    static long pidLimit() {
        long max = readLong(Path.of("/proc/sys/kernel/pid_max"));
        long cgroup = lowest(readLong(Path.of("/sys/fs/cgroup/pids.max")),
                readLong(Path.of("/sys/fs/cgroup/pids/pids.max")));
        if (max <= 0) max = 32_768;
        return cgroup > 0 && cgroup < max ? cgroup : max;
    }

    private static long meminfoTotal() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        } catch (IOException | NumberFormatException ignored) {
            // not Linux: fall back to the JVM's view
        }
        return Runtime.getRuntime().maxMemory() * 4;
    }

    /** The lower of two limits where -1 means none. */
    private static long lowest(long a, long b) {
        return a <= 0 ? b : b <= 0 ? a : Math.min(a, b);
    }

    /** A number in a one-line file; -1 if absent, unreadable or "max". */
    private static long readLong(Path file) {
        try {
            // readAllLines: Files.readString returned the first byte only of a sysctl file here (SessionDir)
            return Long.parseLong(Files.readAllLines(file).get(0).trim());
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
