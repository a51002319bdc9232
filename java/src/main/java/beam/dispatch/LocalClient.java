package beam.dispatch;

import beam.codec.Frame;
import beam.codec.FrameException;
import beam.connection.Connection;
import beam.connection.ReaderLoop;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.logging.Logger;

/**
 * One unix-socket client of the daemon: its frames come from the daemon's {@link ReaderLoop}
 * and go to its {@link Session}, strictly in arrival order. A framing error ends this
 * connection only.
 *
 * <p>The loop's thread reads every local client, so nothing on it may wait. A request that
 * can ({@link #OFF_LOOP}: {@code doctor} waits for reachability probes, {@code daemon_stats}
 * may collect garbage, the status views walk the whole cluster) is handed to a virtual
 * thread, and so is every frame of this client that arrives while that thread has work, so
 * the order holds:
 * <pre>
 *   ON_LOOP  --a frame of an OFF_LOOP op----------------------------> OFF_LOOP (a drainer starts)
 *   OFF_LOOP --any frame, or the end of the stream: queued behind it
 *   OFF_LOOP --the drainer finds the backlog empty-------------------> ON_LOOP
 * </pre>
 * While {@link #MAX_BACKLOG} frames wait, this client's reading is paused (its socket backs
 * up in the kernel, as it would behind a busy reader of its own) until the drainer is done.
 */
public final class LocalClient implements ReaderLoop.Handler {
    private static final Logger LOG = Logger.getLogger(LocalClient.class.getName());
    static final Set<String> OFF_LOOP = Set.of("doctor", "daemon_stats", "status", "cluster_state", "state_list",
            "state_summary");
    /** Frames queued behind a slow request before this client's reading pauses. */
    static final int MAX_BACKLOG = 64;
    /** Queued in the backlog for the end of the stream. */
    private static final Object END = new Object();

    private final Connection connection;
    private final Session session;
    private final ArrayDeque<Object> backlog = new ArrayDeque<>(); // frames and END; guarded by this
    private boolean offLoop; // guarded by this
    private boolean paused; // guarded by this
    private ReaderLoop.Reading reading; // set once, on the loop thread, before the first frame
    private Exception endedBy; // set with END

    private LocalClient(Connection connection, Session session) {
        this.connection = connection;
        this.session = session;
    }

    /** The handler for a new local client of {@code daemon} on {@code connection}. */
    public static LocalClient of(Connection connection, DaemonContext daemon, Origin origin) {
        Session session = new Session(new FrameSink() {
            @Override
            public void send(Frame frame) {
                connection.send(frame);
            }

            @Override
            public void close() {
                connection.closeAfterFlush();
            }
        }, daemon, origin);
        return new LocalClient(connection, session);
    }

    @Override
    public void attached(ReaderLoop.Reading reading) {
        this.reading = reading;
    }

    @Override
    public boolean onFrame(Frame frame) {
        synchronized (this) {
            if (offLoop || OFF_LOOP.contains(frame.op())) {
                backlog.add(frame);
                if (!offLoop) {
                    offLoop = true;
                    Thread.ofVirtual().name("slow request").start(this::drain);
                } else if (backlog.size() >= MAX_BACKLOG && !paused && reading != null) {
                    paused = true;
                    reading.pause();
                }
                return true;
            }
        }
        session.onFrame(frame);
        return !session.isClosed();
    }

    @Override
    public void onEnd(Exception why) {
        synchronized (this) {
            if (offLoop) {
                endedBy = why;
                backlog.add(END);
                return;
            }
        }
        finish(why);
    }

    /** The virtual thread's work: this client's frames, in order, until none is left. */
    private void drain() {
        while (true) {
            Object next;
            synchronized (this) {
                next = backlog.poll();
                if (next == null) {
                    offLoop = false;
                    if (paused) {
                        paused = false;
                        reading.resume();
                    }
                    return;
                }
            }
            if (next == END) finish(endedBy);
            else if (!session.isClosed()) session.onFrame((Frame) next);
            if (session.isClosed()) connection.closeAfterFlush(); // the loop then ends this client
        }
    }

    private void finish(Exception why) {
        if (why instanceof FrameException) LOG.warning("closing " + session.describe() + ": " + why.getMessage());
        else if (why instanceof IOException) LOG.fine(() -> session.describe() + " went away: " + why.getMessage());
        session.onClosed(); // the reader loop closes the connection

    }
}
