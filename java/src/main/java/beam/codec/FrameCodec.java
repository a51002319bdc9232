package beam.codec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;

/**
 * Pure encode/decode of {@code [u32 BE header length][JSON header][payload]} frames
 * (docs/PROTOCOL.md). No sockets here: {@link #decode(InputStream)} reads from any stream
 * and {@link #encode(Frame)} returns bytes, so the rules are unit-tested on byte arrays.
 */
public final class FrameCodec {
    /** Shared, thread-safe once configured. */
    public static final ObjectMapper JSON = new ObjectMapper();

    private final FrameLimits limits;

    public FrameCodec(FrameLimits limits) {
        this.limits = limits;
    }

    public FrameLimits limits() {
        return limits;
    }

    /** Encodes a frame; {@code plen} is set from the payload (and removed when it is empty). */
    public static byte[] encode(Frame frame) {
        ByteBuffer[] parts = encodeBuffers(frame);
        ByteBuffer buf = ByteBuffer.allocate(parts[0].remaining() + frame.payload().length);
        for (ByteBuffer part : parts) buf.put(part);
        return buf.array();
    }

    /**
     * The same bytes as {@link #encode} for a gathering write, without copying the payload:
     * the length prefix and header, then (when not empty) the payload array itself.
     */
    public static ByteBuffer[] encodeBuffers(Frame frame) {
        ObjectNode header = frame.header();
        if (frame.payload().length > 0) header.put("plen", frame.payload().length);
        else header.remove("plen");
        byte[] json;
        try {
            json = JSON.writeValueAsBytes(header);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("header not serializable", e);
        }
        ByteBuffer head = ByteBuffer.allocate(4 + json.length).putInt(json.length).put(json).flip();
        if (frame.payload().length == 0) return new ByteBuffer[] {head};
        return new ByteBuffer[] {head, ByteBuffer.wrap(frame.payload())};
    }

    /**
     * Reads one frame. Returns null on a clean end of stream before the first byte.
     *
     * @throws FrameException for any framing violation (the caller closes the connection)
     * @throws IOException    for socket errors
     */
    public Frame decode(InputStream in) throws IOException, FrameException {
        DataInputStream data = in instanceof DataInputStream d ? d : new DataInputStream(in);
        int first = data.read();
        if (first < 0) return null;
        byte[] rest = new byte[3];
        readFully(data, rest, "frame length");
        long headerLen = ((long) first << 24) | ((rest[0] & 0xffL) << 16) | ((rest[1] & 0xffL) << 8) | (rest[2] & 0xffL);
        if (headerLen == 0) throw new FrameException("frame header length is 0");
        if (headerLen > limits.maxHeaderBytes()) {
            throw new FrameException("frame header of " + headerLen + " bytes exceeds the limit of "
                    + limits.maxHeaderBytes() + " bytes (max_header_bytes)");
        }
        byte[] headerBytes = new byte[(int) headerLen];
        readFully(data, headerBytes, "frame header");
        ObjectNode header = parseHeader(headerBytes);
        long plen = payloadLength(header);
        byte[] payload = Frame.NO_PAYLOAD;
        if (plen > 0) {
            payload = new byte[(int) plen];
            readFully(data, payload, "frame payload");
        }
        return new Frame(header, payload);
    }

    private static ObjectNode parseHeader(byte[] bytes) throws FrameException {
        JsonNode node;
        try {
            node = JSON.readTree(bytes);
        } catch (IOException e) {
            throw new FrameException("frame header is not valid JSON");
        }
        if (!(node instanceof ObjectNode object)) throw new FrameException("frame header is not a JSON object");
        JsonNode op = object.get("op");
        if (op == null || !op.isTextual()) throw new FrameException("frame header has no \"op\" string");
        return object;
    }

    private long payloadLength(ObjectNode header) throws FrameException {
        JsonNode plen = header.get("plen");
        if (plen == null || plen.isNull()) return 0;
        if (!plen.canConvertToLong() || !plen.isIntegralNumber() || plen.asLong() < 0) {
            throw new FrameException("\"plen\" must be a non-negative integer");
        }
        long value = plen.asLong();
        if (value > limits.maxPayloadBytes()) {
            throw new FrameException("payload of " + value + " bytes exceeds the limit of "
                    + limits.maxPayloadBytes() + " bytes (max_payload_bytes)");
        }
        return value;
    }

    private static void readFully(DataInputStream in, byte[] into, String what) throws IOException, FrameException {
        try {
            in.readFully(into);
        } catch (EOFException e) {
            throw new FrameException("connection closed in the middle of the " + what);
        }
    }
}
