package beam.codec;

import beam.util.ErrorKind;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The frame a sender puts in the place of one its receiver would refuse (over the limits):
 * the receiver would cut the connection on it, taking every other request on that link
 * with it, so the sender answers the one waiter with an error that names the limit instead
 * (docs/PROTOCOL.md, "Limits").
 */
public final class FrameRefusal {
    private FrameRefusal() {
    }

    /**
     * What to send instead of {@code frame}, which is too big ({@code why}), so that whoever
     * waits for it hears why instead of waiting on: for a reply, an error reply to the same
     * request; for a result, a failed result of the same call; null for anything else
     * (dropped; the sender logs it).
     */
    public static Frame of(Frame frame, String why) {
        ObjectNode original = frame.header();
        ObjectNode h = FrameCodec.json().createObjectNode();
        h.put("op", frame.op());
        if (original.has("cid")) h.set("cid", original.get("cid"));
        String text = "the daemon could not send this " + frame.op() + ": " + why + ". Raise the limit with `ray start "
                + "--max-header-bytes` / `--max-payload-bytes`, or send less.";
        switch (frame.op()) {
            case "reply" -> {
                h.set("rid", original.get("rid"));
                h.put("ok", false);
                h.put("kind", ErrorKind.INVALID_REQUEST.rayName());
                h.put("error", text);
            }
            case "result" -> {
                h.set("oid", original.get("oid"));
                h.put("status", ErrorKind.FRAME_REFUSED.resultStatus());
                h.put("kind", ErrorKind.FRAME_REFUSED.rayName());
                h.put("message", text);
            }
            default -> {
                return null;
            }
        }
        return new Frame(h);
    }
}
