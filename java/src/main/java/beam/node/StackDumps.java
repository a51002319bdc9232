package beam.node;

import beam.util.NodeQuestion.DumpStacks;
import beam.util.NodeQuestion.DumpedStacks;
import beam.util.NodeQuestion.StackDump;
import beam.util.NodeQuestion.StackTarget;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;

/**
 * The Python stacks of this node's actor processes and drivers ({@code ray stack}), without
 * ptrace: each such process registered faulthandler on {@link #SIGNAL} with its own file
 * under the session's {@code stacks/} folder (ray/_beam/api/stackdump.py). To dump, the
 * daemon truncates the file, signals the process, and reads the file back once its size has
 * stopped changing: faulthandler writes the whole dump at once from its C-level handler,
 * also while a thread holds the GIL in C code.
 *
 * <p>Only the pids the head names are considered, and of those only ones this daemon's user
 * runs whose /proc status shows they catch {@link #SIGNAL} (a process that never registered
 * would die of it) and that are not stopped; an actor's pid must moreover be a process this
 * node started. Every other process is listed with the reason it was not dumped.
 */
public final class StackDumps {
    /** The signal stackdump.py registers: a real-time one no tool near vLLM claims (see there). */
    public static final int SIGNAL = 40;
    /** How long a dump may take before the process is listed as not answering. */
    public static final long DEFAULT_WAIT_MS = DumpStacks.MAX_WAIT_MILLIS;
    /** The most processes one question may name (an upper bound on the files read). */
    public static final int MAX_PROCESSES = 4096;
    /** The most of one dump read back (faulthandler itself stops at 100 threads of 100 frames). */
    static final int MAX_DUMP_BYTES = 256 << 10;
    /**
     * The most stack text one answer carries: it travels in one link frame header, which a node
     * refuses above its limit (1 MiB by default). Dumps past it are cut, saying how to get them.
     */
    static final int MAX_ANSWER_CHARS = 768 << 10;
    private static final long POLL_MS = 20;

    private final Path dir;
    private final LongPredicate isActorProcess;
    private final String ownUid;

    /**
     * @param dir            the session's stacks folder
     * @param isActorProcess whether a pid is an actor process this node started
     */
    public StackDumps(Path dir, LongPredicate isActorProcess) {
        this.dir = dir;
        this.isActorProcess = isActorProcess;
        this.ownUid = statusFields(Path.of("/proc/self/status")).getOrDefault("Uid", "?").split("\\s+")[0];
    }

    /** One dump per asked process, in order: its stack, or why there is none. */
    public CompletableFuture<DumpedStacks> answer(DumpStacks ask) {
        List<StackTarget> asked = ask.processes();
        if (asked.size() > MAX_PROCESSES) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "stack: at most " + MAX_PROCESSES + " processes in one question, not " + asked.size()));
        }
        long waitMs = Math.min(Math.max(ask.waitMillis(), 0), DEFAULT_WAIT_MS);
        CompletableFuture<DumpedStacks> done = new CompletableFuture<>();
        Thread.ofVirtual().name("stack dumps").start(() -> {
            try {
                done.complete(dump(asked, waitMs));
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            }
        });
        return done;
    }

    private DumpedStacks dump(List<StackTarget> asked, long waitMs) {
        Map<Long, String> errors = new LinkedHashMap<>();
        List<Long> signalled = new ArrayList<>();
        for (StackTarget p : asked) {
            long pid = p.pid();
            String why = pid <= 0 ? "not a pid" : refusal(pid, p.actor());
            if (why == null) signalled.add(pid);
            else errors.put(pid, why);
        }
        Map<Long, String> stacks = signalled.isEmpty() ? Map.of() : collect(signalled, waitMs, errors);
        List<StackDump> rows = new ArrayList<>();
        int left = MAX_ANSWER_CHARS;
        for (StackTarget p : asked) {
            long pid = p.pid();
            String stack = stacks.get(pid);
            if (stack == null) {
                rows.add(new StackDump(pid, null, errors.getOrDefault(pid, "no answer")));
                continue;
            }
            if (stack.length() > left) {
                stack = stack.substring(0, Math.max(left, 0)) + "\n... (cut: one node's answer holds "
                        + MAX_ANSWER_CHARS + " characters of stacks; ray stack --pid " + pid + " shows all of it)\n";
            }
            left -= stack.length();
            rows.add(new StackDump(pid, stack, null));
        }
        return new DumpedStacks(rows);
    }

    /** Why {@code pid} may not be signalled, or null when it may. */
    private String refusal(long pid, boolean actor) {
        if (actor && !isActorProcess.test(pid)) return "not an actor process this node started";
        Map<String, String> status = statusFields(Path.of("/proc", String.valueOf(pid), "status"));
        if (status.isEmpty()) {
            forget(pid);
            return "exited";
        }
        String state = status.getOrDefault("State", "?");
        if (state.startsWith("Z") || state.startsWith("X")) return "exited (" + state + ")";
        if (!ownUid.equals(status.getOrDefault("Uid", "").split("\\s+")[0])) return "runs as another user";
        if (isStopped(state)) return stopped(state);
        if (!catches(status.getOrDefault("SigCgt", "0"))) {
            return "registered no stack dump handler (not a beam Python process, or one that has not connected yet)";
        }
        Path file = dir.resolve(String.valueOf(pid));
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) return "has no stack dump file in " + dir;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            ch.truncate(0);
        } catch (IOException e) {
            return "its stack dump file cannot be reset: " + e.getMessage();
        }
        return null;
    }

    private static boolean catches(String sigCgtHex) {
        try {
            return (Long.parseUnsignedLong(sigCgtHex.trim(), 16) & (1L << (SIGNAL - 1))) != 0;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** Signals all at once, then reads each dump once its size held still for one poll. */
    private Map<Long, String> collect(List<Long> pids, long waitMs, Map<Long, String> errors) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        signal(pids, errors);
        Map<Long, Long> lastSize = new LinkedHashMap<>();
        for (long pid : pids) if (!errors.containsKey(pid)) lastSize.put(pid, 0L);
        Map<Long, String> stacks = new LinkedHashMap<>();
        while (!lastSize.isEmpty() && System.nanoTime() < deadline) {
            sleep(POLL_MS);
            for (var it = lastSize.entrySet().iterator(); it.hasNext(); ) {
                var e = it.next();
                long size = size(e.getKey());
                if (size > 0 && size == e.getValue()) {
                    stacks.put(e.getKey(), read(e.getKey()));
                    it.remove();
                } else {
                    e.setValue(size);
                }
            }
        }
        for (long pid : lastSize.keySet()) {
            String state = statusFields(Path.of("/proc", String.valueOf(pid), "status")).get("State");
            // stopped after it was checked (Ctrl-Z, a debugger, or a SIGSTOP the kernel had not
            // yet applied when it was checked): the same reason as one found stopped beforehand
            errors.put(pid, state == null ? "exited before it dumped"
                    : isStopped(state) ? stopped(state)
                    : "did not dump within " + waitMs + " ms (State " + state + ")");
        }
        return stacks;
    }

    private static boolean isStopped(String state) {
        return state.startsWith("T") || state.startsWith("t");
    }

    private static String stopped(String state) {
        return "stopped (" + state + "): it runs no signal handler until it gets SIGCONT";
    }

    /** One kill(1) for every pid: a JVM cannot send a chosen signal itself. */
    private static void signal(List<Long> pids, Map<Long, String> errors) {
        List<String> command = new ArrayList<>(List.of("kill", "-" + SIGNAL));
        for (long pid : pids) command.add(String.valueOf(pid));
        try {
            Process kill = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            kill.getOutputStream().close();
            if (!kill.waitFor(2, TimeUnit.SECONDS)) kill.destroyForcibly();
        } catch (IOException e) {
            for (long pid : pids) errors.put(pid, "kill(1) could not be run: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private long size(long pid) {
        try {
            return Files.size(dir.resolve(String.valueOf(pid)));
        } catch (IOException e) {
            return 0;
        }
    }

    private String read(long pid) {
        try (InputStream in = Files.newInputStream(dir.resolve(String.valueOf(pid)), LinkOption.NOFOLLOW_LINKS)) {
            byte[] bytes = in.readNBytes(MAX_DUMP_BYTES);
            String text = new String(bytes, StandardCharsets.UTF_8);
            return bytes.length == MAX_DUMP_BYTES ? text + "\n... (cut at " + MAX_DUMP_BYTES + " bytes)\n" : text;
        } catch (IOException e) {
            return "(the dump could not be read: " + e.getMessage() + ")";
        }
    }

    /** A process that is gone leaves its file behind: removed when it is found gone. */
    private void forget(long pid) {
        try {
            Files.deleteIfExists(dir.resolve(String.valueOf(pid)));
        } catch (IOException ignored) {
            // the session's removal at stop takes it
        }
    }

    /** The "Key:\tvalue" lines of a /proc status file; empty when the process is gone. */
    static Map<String, String> statusFields(Path status) {
        Map<String, String> fields = new LinkedHashMap<>();
        try {
            for (String line : Files.readAllLines(status, StandardCharsets.UTF_8)) {
                int colon = line.indexOf(':');
                if (colon > 0) fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        } catch (IOException e) { // gone (NoSuchFileException), or not ours to read
            return Map.of();
        }
        return fields;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
