package beam.node;

import beam.cluster.SpawnSpec;
import beam.cluster.NodeAccelerator;
import beam.util.ProcessContext;
import beam.config.Environment;
import beam.util.Scheduler;
import java.util.concurrent.atomic.AtomicBoolean;
import com.fasterxml.jackson.core.JsonProcessingException;
import beam.codec.FrameCodec;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import beam.cluster.AcceleratorKind;

/**
 * The local node's hands: starts one Python worker process per actor (handing it one of the
 * {@link WorkerPool}'s idle workers when one fits), pumps its stdout and stderr into log
 * files and to the actor's owner, reports its exit, and kills it on demand.
 *
 * <p>Threads: {@link #startActor} returns at once; launches run in order on one platform
 * thread; the two log pumps per worker run on platform threads ({@link LogPump} says why) and
 * exits are reported by the JDK's process reaper. {@code running} is a concurrent map.
 */
public final class NodeAgent {
    private static final Logger LOG = Logger.getLogger(NodeAgent.class.getName());

    private final ActorEvents events;
    private final Path socketPath;
    private final Path logDir;
    private final Map<String, Process> running = new ConcurrentHashMap<>();
    /**
     * Workers are forked from this one long-lived platform thread: a worker asks the kernel
     * (PR_SET_PDEATHSIG) to kill it when the thread that forked it ends, so that thread must
     * live as long as the daemon; a pooled or virtual thread's carrier would not.
     */
    private final ExecutorService launcher = Executors.newSingleThreadExecutor(
            r -> Thread.ofPlatform().daemon().name("actor-launcher").unstarted(r));

    /** This host's accelerators: which kind each resource is here, and how many units it has. */
    private final Map<String, NodeAccelerator> accelerators;
    private final ProcessCap cap;
    private final Map<String, String> baseEnv;
    private final WorkerPool pool;
    private final AtomicBoolean poolWarmed = new AtomicBoolean();
    /** Actor starts so far; only the launcher thread touches it. */
    private long starts;
    /** How long after the last actor start the pool waits to refill ({@link #refillLater}). */
    static final long REFILL_QUIET_MS = 1000;
    private final long refillQuietMs;

    public NodeAgent(ActorEvents events, Path socketPath, Path logDir,
                     Map<String, NodeAccelerator> accelerators, ProcessCap cap) {
        this(events, socketPath, logDir, accelerators, cap, Environment.current().given(Environment.PYTHON), WorkerPool.SIZE,
                REFILL_QUIET_MS);
    }

    /**
     * @param poolPython the Python that idle pooled workers run: the one that ran `ray start`
     *                   (BEAM_PYTHON, set by the launcher); null for no pool
     * @param refillQuietMs how long after the last actor start the pool refills
     */
    NodeAgent(ActorEvents events, Path socketPath, Path logDir,
              Map<String, NodeAccelerator> accelerators, ProcessCap cap,
              String poolPython, int poolSize, long refillQuietMs) {
        this.cap = cap;
        this.refillQuietMs = refillQuietMs;
        this.events = events;
        this.socketPath = socketPath;
        this.logDir = logDir;
        this.accelerators = Map.copyOf(accelerators);
        this.baseEnv = baseEnvironment(socketPath);
        this.pool = new WorkerPool(poolPython, socketPath.toString(), baseEnv, poolSize, running::size, cap.limit());
    }

    /** Whether {@code pid} is an actor process this agent started and that still runs. */
    public boolean runsActorProcess(long pid) {
        for (Process p : running.values()) if (p.pid() == pid) return true;
        return false;
    }

    /**
     * Fills the pool of idle workers, once: when the first driver arrives or the first actor
     * starts here. Not at `ray start`, so that an idle node that never runs actors costs no
     * Python processes (docs/PERFORMANCE.md, "Actor start-up").
     */
    public void warmPool() {
        if (poolWarmed.compareAndSet(false, true)) launcher.execute(pool::refill);
    }

    /**
     * What every worker's environment starts from: the daemon's, less its credentials (an
     * actor's own runtime_env may still set what it likes), with RAY_TMPDIR naming this node's
     * temp dir. A process the actor starts that calls ray.init() (vLLM's EngineCore, spawned by
     * an LLM(...) inside an actor) must join this cluster through this node's daemon, as under
     * Ray, not start a private one: discovery reads RAY_TMPDIR/session_latest/node.json, and
     * the socket is in the sockets folder of the session under it.
     */
    private static Map<String, String> baseEnvironment(Path socketPath) {
        Map<String, String> env = new HashMap<>(Environment.current().vars());
        Secrets.strip(env);
        env.put("RAY_TMPDIR", socketPath.toAbsolutePath().getParent().getParent().getParent().toString());
        env.put("PYTHONUNBUFFERED", "1");
        return env;
    }

    /**
     * The whole environment of {@code spec}'s worker, computed here only: a fresh process is
     * started with it and a pooled one is handed it, and the worker applies it as given.
     */
    Map<String, String> environment(SpawnSpec spec) {
        Map<String, String> env = new HashMap<>(baseEnv);
        env.putAll(spec.envVars());
        env.put("PYTHONUNBUFFERED", "1");
        env.putIfAbsent("OMP_NUM_THREADS", String.valueOf(spec.ompThreads()));
        ProcessContext ctx = spec.context();
        if (ctx != null && ctx.sysPath() != null) {
            try {
                env.put("BEAM_DRIVER_SYS_PATH", FrameCodec.json().writeValueAsString(ctx.sysPath()));
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }
        setVisibleDevices(spec, env);
        return env;
    }

    /** Starts the worker of {@code spec}; returns at once. */
    public void spawn(SpawnSpec spec) {
        launcher.execute(() -> launch(spec));
    }

    private void launch(SpawnSpec spec) {
        // launches run one at a time on this thread, so the count cannot change under us but by exits
        if (running.size() >= cap.limit()) {
            events.startFailed(spec.actorId(), cap.refusal(running.size()));
            return;
        }
        ProcessContext ctx = spec.context();
        String python = ctx != null && ctx.python() != null ? ctx.python() : "python3";
        File cwd = ctx != null && ctx.cwd() != null && new File(ctx.cwd()).isDirectory() ? new File(ctx.cwd()) : null;
        Map<String, String> env = environment(spec);
        List<String> args = List.of("--socket", socketPath.toString(), "--actor-id", spec.actorId());
        Process process = pool.take(python, env, cwd, args);
        if (process == null) {
            if (running.size() + pool.idleCount() >= cap.limit()) pool.retireOne();
            List<String> cmd = new ArrayList<>(List.of(python, "-u", "-m", "ray._beam.worker"));
            cmd.addAll(args);
            ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd);
            pb.environment().clear();
            pb.environment().putAll(env);
            try {
                process = pb.start();
            } catch (IOException e) {
                events.startFailed(spec.actorId(), "could not run " + python + ": " + e.getMessage());
                return;
            }
        }
        running.put(spec.actorId(), process);
        events.started(spec.actorId(), process.pid());
        watch(spec, process);
        refillLater();
    }

    /**
     * Refills the pool once no actor has started here for {@link #REFILL_QUIET_MS}: a new
     * worker's interpreter start and imports (~50 ms of CPU each) would otherwise share the
     * cores with the actors just started, during their first calls (the cold shape's sync p99,
     * docs/PERFORMANCE.md, "Actor start-up").
     */
    private void refillLater() {
        poolWarmed.set(true);
        long mine = ++starts;
        Scheduler.system().after(refillQuietMs, () -> launcher.execute(() -> {
            if (starts == mine) pool.refill();
        }));
    }

    /**
     * An actor's end refills the pool at once, without the wait after a start: the cores the
     * actor used are free now, and a node whose actors end usually gets new ones soon (an
     * engine restarted, the next job's), which then find idle workers ready. Runs on the
     * launcher thread, which forks every worker; a closed pool (shutdown) starts none.
     */
    private void refillAfterExit() {
        try {
            launcher.execute(pool::refill);
        } catch (RejectedExecutionException e) {
            // the launcher is gone: the daemon is stopping, so no pool is wanted
        }
    }

    private void watch(SpawnSpec spec, Process process) {
        String prefix = "actor-" + spec.className() + "-" + spec.actorId() + "-" + process.pid();
        LogPump out = LogPump.start(process.getInputStream(), logDir.resolve(prefix + ".out"), "stdout", spec, process.pid(), events);
        LogPump err = LogPump.start(process.getErrorStream(), logDir.resolve(prefix + ".err"), "stderr", spec, process.pid(), events);
        long oomBefore = OomCounter.read();
        process.onExit().thenAccept(p -> {
            out.awaitDrained(300);
            err.awaitDrained(300);
            synchronized (running) {
                running.remove(spec.actorId());
                running.notifyAll();
            }
            long oomAfter = OomCounter.read();
            events.exited(spec.actorId(), p.exitValue(), err.tail(), oomBefore < 0 ? 0 : Math.max(0, oomAfter - oomBefore));
            refillAfterExit();
        });
    }

    /**
     * Kills the actor's process tree (SIGKILL); no-op if it is not running here. Returns at
     * once: the kill runs on the launcher thread, after any start already asked for (so a kill
     * that follows its actor's start closely finds the process), and finding the tree's
     * children scans /proc, which the reader loop that asks for it must not wait for.
     */
    public void kill(String actorId) {
        launcher.execute(() -> {
            Process p = running.get(actorId);
            if (p != null) killTree(p.toHandle());
        });
    }

    /** Kills every running worker and every idle one (daemon shutdown). */
    public void killAll() {
        pool.close();
        for (Process p : new ArrayList<>(running.values())) killTree(p.toHandle());
    }

    /** Idle pooled workers now (tests, diagnostics). */
    public int idleCount() {
        return pool.idleCount();
    }

    public int runningCount() {
        return running.size();
    }

    /** Retires the idle workers, then waits until no actor's process is left, at most {@code millis}; true if none is. */
    public boolean awaitNoneRunning(long millis) {
        pool.close();
        long deadline = System.nanoTime() + millis * 1_000_000;
        synchronized (running) {
            while (!running.isEmpty()) {
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0) return false;
                try {
                    running.wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return true;
        }
    }

    static void killTree(ProcessHandle handle) {
        handle.descendants().forEach(ProcessHandle::destroyForcibly);
        handle.destroyForcibly();
    }

    /**
     * Names the actor's devices in each kind's visibility variable (CUDA_VISIBLE_DEVICES,
     * ASCEND_RT_VISIBLE_DEVICES, ...), unless the actor's environment carries that kind's
     * RAY_EXPERIMENTAL_NOSET_* switch: the rules are {@link beam.cluster.AcceleratorKind#visibility}.
     */
    private void setVisibleDevices(SpawnSpec spec, Map<String, String> env) {
        spec.deviceIds().forEach((resource, ids) -> {
            NodeAccelerator here = accelerators.get(resource);
            AcceleratorKind kind = here != null ? here.kind() : AcceleratorKind.forResource(resource);
            if (kind == null) return;
            int units = here == null ? ids.size() : here.ids().size();
            kind.visibility(ids, units, env).forEach((name, value) -> {
                if (value == null) env.remove(name);
                else env.put(name, value);
            });
        });
    }

    static Logger log() {
        return LOG;
    }
}
