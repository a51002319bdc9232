package beam.link;

import beam.codec.Frame;
import beam.protocol.Frames;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Frames of the node link (docs/PROTOCOL.md, "Node links"). A frame that carries a
 * {@code cid} belongs to a client of the joined node and is relayed as-is; every other
 * frame is a link op.
 */
final class LinkOps {
    static final String CID = "cid";

    private LinkOps() {
    }

    static Frame op(String op) {
        return new Frame(Frames.header(op));
    }

    /** A copy of {@code frame} tagged with the client id. */
    static Frame tag(Frame frame, long cid) {
        ObjectNode h = frame.header().deepCopy();
        h.put(CID, cid);
        return new Frame(h, frame.payload());
    }

    /** The frame without its client id (the header is modified in place). */
    static Frame untag(Frame frame) {
        frame.header().remove(CID);
        return frame;
    }

    static boolean isRelayed(Frame frame) {
        return frame.header().has(CID);
    }

    static long cid(Frame frame) {
        return frame.header().path(CID).asLong(-1);
    }

    static Frame clientEvent(String op, long cid) {
        ObjectNode h = Frames.header(op);
        h.put("client", cid);
        return new Frame(h);
    }
}
