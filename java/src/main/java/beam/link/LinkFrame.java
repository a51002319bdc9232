package beam.link;

import beam.codec.Frame;
import beam.protocol.Request.BadRequest;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Hands one frame of a link to its end's switch. A frame that does not read as a link
 * message, or whose handling throws, is logged and dropped: one bad frame never cuts a link.
 */
public final class LinkFrame {
    private static final Logger LOG = Logger.getLogger(LinkFrame.class.getName());

    /** A {@code LinkCodec} reader for one direction. */
    @FunctionalInterface
    public interface Reader<M> {
        M read(Frame frame) throws BadRequest;
    }

    private LinkFrame() {
    }

    /** {@code from}: the peer, as log lines name it ("node 10.0.0.2", "the head"). */
    public static <M> void handle(Frame frame, Reader<M> reader, Consumer<M> handler, String from) {
        M message;
        try {
            message = reader.read(frame);
        } catch (BadRequest e) {
            LOG.warning(from + " sent a bad link frame: " + e.getMessage());
            return;
        }
        try {
            handler.accept(message);
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "bug: handling the '" + frame.op() + "' of " + from + " failed", e);
        }
    }
}
