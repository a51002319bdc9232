package beam.codec;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One protocol message: a JSON header object (always with an {@code "op"} string) and an
 * opaque payload. The payload is never interpreted by the daemon: it is cloudpickle bytes
 * made and read by Python, carried as-is.
 */
public record Frame(ObjectNode header, byte[] payload) {
    public static final byte[] NO_PAYLOAD = new byte[0];

    public Frame {
        if (payload == null) payload = NO_PAYLOAD;
    }

    public Frame(ObjectNode header) {
        this(header, NO_PAYLOAD);
    }

    public String op() {
        return header.path("op").asText("");
    }
}
