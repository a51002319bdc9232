package beam.link;

import beam.codec.Frame;
import beam.protocol.Frames;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Frames of the node link (docs/PROTOCOL.md, "Node links"). A frame that carries a
 * {@code cid} belongs to a client of the joined node and is relayed as-is; every other
 * frame is a link op. A plain call or result carries it as its first field, read and cut
 * on the bytes by the codec ({@link Frame#linkCid()}); other frames carry it in their tree.
 * Both ends of a link (the head's {@link MemberLink}, the joined node's
 * {@code beam.daemon.MemberDaemon}) make and read link frames only through here.
 */
public final class LinkOps {
    static final String CID = "cid";

    private LinkOps() {
    }

    public static Frame op(String op) {
        return new Frame(Frames.header(op));
    }

    /** The head's ping: carries its clock ({@code t}, nanos) so that the node's {@code pong} gives the round trip. */
    public static Frame ping() {
        ObjectNode h = Frames.header("ping");
        h.put("t", System.nanoTime());
        return new Frame(h);
    }

    /** A joined node's answer to the head's {@code ping}, or null when the ping asks for none. */
    public static Frame pong(ObjectNode ping) {
        if (!ping.hasNonNull("t")) return null;
        ObjectNode h = Frames.header("pong");
        h.set("t", ping.get("t"));
        return new Frame(h);
    }

    /** A copy of {@code frame} tagged with the client id. */
    public static Frame tag(Frame frame, long cid) {
        return frame.taggedWith(cid);
    }

    /** The frame without its client id (a tree's is removed in place). */
    public static Frame untag(Frame frame) {
        if (frame.linkCid() < 0) frame.header().remove(CID);
        return frame;
    }

    public static boolean isRelayed(Frame frame) {
        return frame.linkCid() >= 0 || frame.header().has(CID);
    }

    public static long cid(Frame frame) {
        return frame.linkCid() >= 0 ? frame.linkCid() : frame.header().path(CID).asLong(-1);
    }

    public static Frame clientEvent(String op, long cid) {
        ObjectNode h = Frames.header(op);
        h.put("client", cid);
        return new Frame(h);
    }
}
