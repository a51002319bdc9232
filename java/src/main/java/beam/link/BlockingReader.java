package beam.link;

import beam.codec.Frame;
import beam.codec.FrameException;
import beam.connection.Connection;
import beam.connection.ReaderLoop;
import java.io.IOException;

/**
 * Reads a link with blocking reads on the calling thread and hands its frames to the same
 * {@link ReaderLoop.Handler} a selected socket's frames go to, with the same contract (in
 * order; {@code onEnd} once, after the last frame, null for a clean end). So each end of a
 * link is one handler however its socket is read: the head reads each link on the thread
 * its listener gave it, a joined node reads a TLS link here (TLS cannot be selected) and a
 * plain one in its reader loop.
 */
public final class BlockingReader {
    private BlockingReader() {
    }

    public static void feed(Connection connection, ReaderLoop.Handler handler) {
        Exception why = null;
        try {
            Frame frame;
            while ((frame = connection.read()) != null) {
                if (!handler.onFrame(frame)) break;
            }
        } catch (FrameException | IOException e) {
            why = e;
        }
        handler.onEnd(why);
    }
}
