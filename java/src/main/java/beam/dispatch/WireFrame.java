package beam.dispatch;

import beam.cluster.Forwarded;
import beam.codec.Frame;

/** A frame the domain forwards without reading it (a call, a result, an actor's output), as it arrived. */
public record WireFrame(Frame frame) implements Forwarded {
    /** The frame inside {@code message}; every {@link Forwarded} the daemon makes is a WireFrame. */
    public static Frame of(Forwarded message) {
        if (message instanceof WireFrame w) return w.frame();
        throw new IllegalArgumentException("not a frame to forward: " + message);
    }
}
