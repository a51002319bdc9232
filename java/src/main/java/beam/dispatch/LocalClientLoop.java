package beam.dispatch;

import beam.codec.Frame;
import beam.codec.FrameException;
import beam.connection.Connection;
import java.io.IOException;
import java.util.logging.Logger;

/**
 * Runs one unix-socket client: reads frames in order on the connection's virtual thread and
 * hands them to its {@link Session}. A framing error ends this connection only.
 */
public final class LocalClientLoop {
    private static final Logger LOG = Logger.getLogger(LocalClientLoop.class.getName());

    private LocalClientLoop() {
    }

    public static void run(Connection connection, DaemonContext daemon, Origin origin) {
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
        try {
            Frame frame;
            while ((frame = connection.read()) != null && !session.isClosed()) session.onFrame(frame);
        } catch (FrameException e) {
            LOG.warning("closing " + session.describe() + ": " + e.getMessage());
        } catch (IOException e) {
            LOG.fine(() -> session.describe() + " went away: " + e.getMessage());
        } finally {
            connection.closeAfterFlush();
            session.onClosed();
        }
    }
}
