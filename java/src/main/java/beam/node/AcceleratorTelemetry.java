package beam.node;

import beam.util.DeviceTelemetry;
import beam.util.Scheduler;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * Samples this node's accelerators' utilization and memory with its vendor tool
 * ({@link TelemetryTool}) {@link #FIRST_SAMPLE_MILLIS} after start, then every
 * {@link #PERIOD_MILLIS}, and hands each result to a sink (the
 * cluster on the head, the link to the head on a joined node).
 *
 * <p>A tool must never block or load the daemon: at most one sample is in flight; one that
 * has not answered in {@link #TIMEOUT_MILLIS} is killed (with anything it started) and
 * reported as hung; a killed tool that still has not exited (a process stuck in the driver
 * cannot die) holds back every later sample, so processes never pile up, and that is
 * reported too. A tool that is not installed (a count declared on a host without the vendor's
 * tools) ends sampling: there is nothing to show. Output is read up to {@link #MAX_OUTPUT}
 * bytes.
 *
 * <p>Threads: the timer only starts a virtual thread; {@code inFlight}, {@code killed} and
 * {@code timer} are guarded by {@code this}; {@code latest} is written by the thread that finished a sample.
 */
public final class AcceleratorTelemetry implements AutoCloseable {
    public static final long PERIOD_MILLIS = 5_000;
    public static final long TIMEOUT_MILLIS = 5_000;
    static final long FIRST_SAMPLE_MILLIS = 1_000;
    static final int MAX_OUTPUT = 256 * 1024;
    private static final Logger LOG = Logger.getLogger(AcceleratorTelemetry.class.getName());

    private final TelemetryTool tool;
    private final Consumer<DeviceTelemetry> sink;
    private final long timeoutMillis;
    private Process inFlight;
    private boolean killed;
    private volatile DeviceTelemetry latest;
    private volatile boolean closed;
    private Scheduler.Timer timer;

    /** Starts the tool's process: {@link ProcessBuilder} outside tests. */
    interface Starter {
        Process start(List<String> command) throws IOException;
    }

    private final Starter starter;
    /** The node's device ids of the tool's resource; empty: keep every device the tool lists. */
    private List<String> nodeIds = List.of();

    AcceleratorTelemetry(TelemetryTool tool, Consumer<DeviceTelemetry> sink, long timeoutMillis) {
        this(tool, sink, timeoutMillis, command -> new ProcessBuilder(command).start());
    }

    AcceleratorTelemetry(TelemetryTool tool, Consumer<DeviceTelemetry> sink, long timeoutMillis, Starter starter) {
        this.starter = starter;
        this.tool = tool;
        this.sink = sink;
        this.timeoutMillis = timeoutMillis;
        this.latest = new DeviceTelemetry(tool.name(), tool.resource(), 0, List.of(), null, false);
    }

    /** Sampling for a node with these accelerators, or null when none has a tool that reports its load. */
    public static AcceleratorTelemetry start(java.util.Map<String, beam.cluster.NodeAccelerator> accelerators,
                                             Consumer<DeviceTelemetry> sink) {
        TelemetryTool tool = TelemetryTool.forNode(accelerators);
        if (tool == null) return null;
        AcceleratorTelemetry t = new AcceleratorTelemetry(tool, sink, TIMEOUT_MILLIS);
        t.nodeIds = List.copyOf(accelerators.get(tool.resource()).ids());
        // the first one a moment after start (a fork then competes with the daemon's own
        // start-up), the next ones a whole period apart from it
        Scheduler.system().after(FIRST_SAMPLE_MILLIS, () -> {
            synchronized (t) {
                if (t.closed) return;
                t.timer = Scheduler.system().every(PERIOD_MILLIS, t::sampleSoon);
            }
            t.sampleSoon();
        });
        return t;
    }

    /** The last result: devices of the last good sample and the latest try's problem. */
    public DeviceTelemetry latest() {
        return latest;
    }

    /** Starts a sample on a virtual thread of its own unless one is in flight. */
    void sampleSoon() {
        Thread.ofVirtual().name("telemetry-" + tool.name()).start(this::sample);
    }

    /** One sample, run to its end on the calling thread (tests call it directly). */
    void sample() {
        Process p;
        synchronized (this) {
            if (closed) return;
            if (inFlight != null) {
                if (killed && inFlight.isAlive()) {
                    publish(latest.failed(tool.name() + " (pid " + inFlight.pid() + ") did not answer in "
                            + seconds() + " s and has not exited after it was killed: a hung " + tool.name()
                            + " usually means a driver or GPU fault; no new sample is started until it exits", true));
                }
                return;
            }
            try {
                p = starter.start(tool.command());
            } catch (IOException e) {
                LOG.fine(() -> tool.name() + " cannot run (" + e.getMessage() + "): accelerator telemetry is off");
                close();
                publish(DeviceTelemetry.NONE);
                return;
            }
            inFlight = p;
            killed = false;
        }
        try {
            finish(p);
        } finally {
            Runnable clear = () -> {
                synchronized (this) {
                    if (inFlight == p) inFlight = null;
                }
            };
            if (p.isAlive()) p.onExit().thenRun(clear);
            else clear.run();
        }
    }

    private void finish(Process p) {
        try {
            p.getOutputStream().close();
            String[] out = {"", ""}; // stdout, stderr: each written by its reader before join returns
            Thread reader = Thread.ofVirtual().start(() -> out[0] = readCapped(p.getInputStream()));
            Thread err = Thread.ofVirtual().start(() -> out[1] = readCapped(p.getErrorStream()));
            if (!p.waitFor(timeoutMillis, TimeUnit.MILLISECONDS)) {
                synchronized (this) {
                    killed = true;
                }
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                publish(latest.failed(tool.name() + " did not answer in " + seconds() + " s: a hung " + tool.name()
                        + " usually means a driver or GPU fault", true));
                return;
            }
            reader.join(timeoutMillis);
            err.join(timeoutMillis);
            if (p.exitValue() != 0) {
                publish(latest.failed(tool.name() + " failed (exit " + p.exitValue() + ")" + firstLine(out[1]), false));
                return;
            }
            try {
                publish(DeviceTelemetry.sampled(tool.name(), tool.resource(), System.currentTimeMillis(),
                        ownDevices(tool.parser().apply(out[0]))));
            } catch (IllegalArgumentException e) {
                publish(latest.failed("cannot read what " + tool.name() + " printed: " + e.getMessage(), false));
            }
        } catch (IOException e) {
            publish(latest.failed(tool.name() + " failed: " + e.getMessage(), false));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The devices that are this node's: a tool lists every device of the host, and a node
     * started with a visibility variable (CUDA_VISIBLE_DEVICES=3,5) has only those, by
     * index or UUID. Where none matches (ids the tool does not use) every device is kept,
     * so that a node shows what its host has rather than nothing.
     */
    List<DeviceTelemetry.Device> ownDevices(List<DeviceTelemetry.Device> all) {
        List<DeviceTelemetry.Device> own = all.stream()
                .filter(d -> nodeIds.contains(d.index()) || (d.uuid() != null && nodeIds.contains(d.uuid()))).toList();
        return own.isEmpty() ? all : own;
    }

    private void publish(DeviceTelemetry t) {
        latest = t;
        if (!closed || t == DeviceTelemetry.NONE) sink.accept(t);
    }

    private long seconds() {
        return Math.max(1, timeoutMillis / 1000);
    }

    private static String firstLine(String s) {
        String line = s.strip().lines().findFirst().orElse("");
        if (line.length() > 160) line = line.substring(0, 160) + "...";
        return line.isEmpty() ? "" : ": " + line;
    }

    private static String readCapped(InputStream in) {
        try (in) {
            byte[] b = in.readNBytes(MAX_OUTPUT);
            in.transferTo(java.io.OutputStream.nullOutputStream()); // drain the rest so the tool is not blocked on a full pipe
            return new String(b, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (timer != null) timer.cancel();
    }
}
