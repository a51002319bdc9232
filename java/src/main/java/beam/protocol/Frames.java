package beam.protocol;

import beam.codec.Frame;
import beam.codec.FrameCodec;
import beam.util.ErrorKind;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Builders for the frames the daemon sends (docs/PROTOCOL.md). */
public final class Frames {
    private Frames() {
    }

    public static ObjectNode header(String op) {
        ObjectNode h = JsonNodeFactory.instance.objectNode();
        h.put("op", op);
        return h;
    }

    public static ObjectNode ok(long rid) {
        ObjectNode h = header("reply");
        h.put("rid", rid);
        h.put("ok", true);
        return h;
    }

    /**
     * A successful reply whose fields are {@code body}, carried as JSON in the payload
     * ({@code "body": "json"} in the header) rather than in the header: a cluster's tables
     * (100,000 placement groups are ~40 MB) outgrow any header limit, a payload's limit is a
     * gigabyte, and the receiver merges the fields into the reply as if they were in its header.
     */
    public static Frame okWithBody(long rid, ObjectNode body) {
        try {
            return okWithBody(rid, FrameCodec.json().writeValueAsBytes(body));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a reply body is not serializable", e);
        }
    }

    /** As {@link #okWithBody(long, ObjectNode)}, for a body already written as JSON bytes (an object). */
    public static Frame okWithBody(long rid, byte[] jsonObject) {
        ObjectNode h = ok(rid);
        h.put("body", "json");
        return new Frame(h, jsonObject);
    }

    public static Frame error(long rid, ErrorKind kind, String message) {
        ObjectNode h = header("reply");
        h.put("rid", rid);
        h.put("ok", false);
        h.put("kind", kind.rayName());
        h.put("error", message);
        return new Frame(h);
    }

    /** A failed call: its {@code status} (actor_died or error) and {@code kind} follow from {@code kind}. */
    public static Frame failedResult(String oid, ErrorKind kind, String message) {
        ObjectNode h = header("result");
        h.put("oid", oid);
        h.put("status", kind.resultStatus());
        h.put("kind", kind.rayName());
        h.put("message", message);
        return new Frame(h);
    }

    public static Frame pgEvent(String op, String pgId, String message) {
        ObjectNode h = header(op);
        h.put("pg_id", pgId);
        if (message != null) h.put("message", message);
        return new Frame(h);
    }
}
