package beam.dispatch;

import beam.codec.Frame;
import beam.codec.FrameException;
import beam.connection.Connection;
import beam.connection.ReaderLoop;
import java.io.IOException;
import java.util.logging.Logger;

/**
 * One unix-socket client of the daemon: its frames come from the daemon's {@link ReaderLoop}
 * and go to its {@link Session}, strictly in arrival order; a request that may wait runs off
 * the loop ({@link OffLoop}), and while {@link #MAX_BACKLOG} frames wait behind it this
 * client's reading is paused (its socket backs up in the kernel, as it would behind a busy
 * reader of its own). A framing error ends this connection only.
 */
public final class LocalClient implements ReaderLoop.Handler, OffLoop.Owner {
    private static final Logger LOG = Logger.getLogger(LocalClient.class.getName());
    /** Frames queued behind a slow request before this client's reading pauses. */
    static final int MAX_BACKLOG = 64;

    private final Connection connection;
    private final Session session;
    private final OffLoop offLoop = new OffLoop(this, MAX_BACKLOG, "slow request");
    private volatile ReaderLoop.Reading reading; // set once, on the loop thread, before the first frame

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
        if (offLoop.offer(frame)) return true;
        session.onFrame(frame);
        return !session.isClosed();
    }

    @Override
    public void onEnd(Exception why) {
        if (!offLoop.offerEnd(why)) end(why);
    }

    // ------------------------------------------------------------------ OffLoop.Owner: the drainer's thread

    @Override
    public void frame(Frame frame) {
        if (!session.isClosed()) session.onFrame(frame);
        if (session.isClosed()) connection.closeAfterFlush(); // the loop then ends this client
    }

    @Override
    public void end(Exception why) {
        if (why instanceof FrameException) LOG.warning("closing " + session.describe() + ": " + why.getMessage());
        else if (why instanceof IOException) LOG.fine(() -> session.describe() + " went away: " + why.getMessage());
        session.onClosed(); // the reader loop closes the connection
    }

    @Override
    public void backlogFull() {
        if (reading != null) reading.pause();
    }

    @Override
    public void drained() {
        if (reading != null) reading.resume();
    }
}
