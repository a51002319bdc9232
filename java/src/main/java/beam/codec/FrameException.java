package beam.codec;

/** A frame broke the framing rules; the connection that sent it is closed. */
public final class FrameException extends Exception {
    public FrameException(String message) {
        super(message);
    }
}
