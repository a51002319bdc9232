package beam.node;

import beam.codec.FrameCodec;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * Idle actor workers, started before anyone asks for an actor: a fresh worker spends most of
 * its first ~45 ms of CPU starting the interpreter and importing beam and cloudpickle, which a
 * pooled one has done already (docs/PERFORMANCE.md, "Actor start-up"). A pooled worker waits on its
 * stdin for one JSON line, {@code {"argv": [...], "cwd": ..., "env": {...}}}: the actor's whole
 * environment as {@link NodeAgent#environment} computes it for a fresh process, its working
 * directory and its arguments. It applies them before it connects and unpickles the class
 * (python/ray/_beam/worker_start.py), so the actor sees what a fresh process would. While idle it
 * is named {@code beam-idle} in /proc/PID/comm.
 *
 * <p>What the interpreter reads only while it starts (PYTHON*, LD_*, the locale, TZ, ...)
 * cannot be applied later: an actor whose environment differs from the pool's in one of
 * those, or that runs another Python, gets a fresh process ({@link #fits}). The hand-over
 * line also names the actor's Python ({@code "python"}), which becomes sys.executable.
 *
 * <p>Only the node agent's launcher thread starts workers, so that it is the thread that forks
 * every worker (PR_SET_PDEATHSIG, see {@link NodeAgent}); methods are synchronized because
 * shutdown closes the pool from another thread. Idle workers count against the node's
 * actor-process cap together with the running ones.
 */
final class WorkerPool {
    /** Idle workers kept ready: the actors of one vLLM engine on a 4-GPU node. */
    static final int SIZE = 4;
    /** Names the interpreter reads while it starts; a pooled worker must already have the actor's values. */
    private static final List<String> START_UP_PREFIXES = List.of("PYTHON", "LD_", "LC_", "MALLOC_", "GLIBC_");
    private static final Set<String> START_UP_NAMES = Set.of("LANG", "LANGUAGE", "TZ", "HOME");

    private final String python;
    private final String socket;
    private final Map<String, String> env;
    private final int size;
    private final IntSupplier running;
    private final int cap;
    private final Deque<Process> idle = new ArrayDeque<>();
    private final Map<String, Boolean> sameInterpreters = new HashMap<>();
    private boolean closed;

    /**
     * @param python  the interpreter pooled workers run (null or empty: no pool)
     * @param socket  the daemon's socket, on their command line so that `ray stop` and leak checks find them
     * @param env     their environment: the daemon's, less its secrets, with what every worker gets
     * @param running how many actor processes run now (for the cap)
     */
    WorkerPool(String python, String socket, Map<String, String> env, int size, IntSupplier running, int cap) {
        this.python = python == null || python.isEmpty() ? null : python;
        this.socket = socket;
        this.env = Map.copyOf(env);
        this.size = this.python == null ? 0 : size;
        this.running = running;
        this.cap = cap;
    }

    /** Starts idle workers until {@code size} are ready or the cap is reached. */
    synchronized void refill() {
        idle.removeIf(p -> !p.isAlive());
        while (!closed && idle.size() < size && running.getAsInt() + idle.size() < cap) {
            ProcessBuilder pb = new ProcessBuilder(python, "-u", "-m", "ray._beam.worker_start", "--pooled", "--socket", socket,
                    "--daemon-pid", String.valueOf(ProcessHandle.current().pid()));
            pb.environment().clear();
            pb.environment().putAll(env);
            try {
                idle.add(pb.start());
            } catch (IOException e) {
                NodeAgent.log().warning("could not start a pooled worker with " + python + ": " + e.getMessage()
                        + "; actors get fresh processes");
                closed = true;
            }
        }
    }

    /**
     * An idle worker given this actor's arguments, cwd and environment, or null when none fits
     * (the caller starts a fresh process). The caller owns the process from then on.
     */
    synchronized Process take(String actorPython, Map<String, String> actorEnv, File cwd, List<String> argv) {
        if (!fits(actorPython, actorEnv)) return null;
        Process p;
        while ((p = idle.poll()) != null) {
            if (!p.isAlive()) continue;
            Map<String, Object> job = new HashMap<>();
            job.put("argv", argv);
            job.put("python", actorPython);
            job.put("cwd", cwd == null ? null : cwd.getPath());
            job.put("env", actorEnv);
            try {
                // not closed after: a fresh worker's stdin is a pipe that stays open and empty, too
                OutputStream in = p.getOutputStream();
                in.write(FrameCodec.json().writeValueAsString(job).getBytes(StandardCharsets.UTF_8));
                in.write('\n');
                in.flush();
                return p;
            } catch (IOException e) {
                p.destroyForcibly(); // it died between the check and the write: try the next one
            }
        }
        return null;
    }

    /** Whether a pooled worker can become this actor's: same Python, same start-up variables. */
    synchronized boolean fits(String actorPython, Map<String, String> actorEnv) {
        if (python == null || actorPython == null || !sameInterpreters.computeIfAbsent(actorPython, this::sameInterpreter)) {
            return false;
        }
        for (String name : union(env.keySet(), actorEnv.keySet())) {
            if (readAtStartUp(name) && !Objects.equals(env.get(name), actorEnv.get(name))) return false;
        }
        return true;
    }

    /**
     * The same file in the same folder (a venv's bin/python and bin/python3.11): the same
     * interpreter with the same sys.prefix; only sys.executable differs, which the worker sets
     * to the actor's path when it takes the actor on.
     */
    private boolean sameInterpreter(String actorPython) {
        try {
            Path a = Path.of(python).toAbsolutePath();
            Path b = Path.of(actorPython).toAbsolutePath();
            return a.equals(b) || (Objects.equals(a.getParent(), b.getParent()) && Files.isSameFile(a, b));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    static boolean readAtStartUp(String name) {
        return START_UP_NAMES.contains(name) || START_UP_PREFIXES.stream().anyMatch(name::startsWith);
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> all = new java.util.HashSet<>(a);
        all.addAll(b);
        return all;
    }

    /** Kills one idle worker, so that a fresh process fits under the cap. */
    synchronized void retireOne() {
        Process p = idle.poll();
        if (p != null) NodeAgent.killTree(p.toHandle());
    }

    synchronized int idleCount() {
        return idle.size();
    }

    /** Kills every idle worker and starts no more (daemon shutdown). */
    synchronized void close() {
        closed = true;
        Process p;
        while ((p = idle.poll()) != null) NodeAgent.killTree(p.toHandle());
    }
}
