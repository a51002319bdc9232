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
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Pure encode/decode of {@code [u32 BE header length][JSON header][payload]} frames
 * (docs/PROTOCOL.md). No sockets here: {@link #decode(InputStream)} reads from any stream
 * and {@link #encode(Frame)} returns bytes, so the rules are unit-tested on byte arrays.
 */
public final class FrameCodec {
    /**
     * Jackson's mapper: shared, thread-safe once configured. Made on first use rather than
     * with the codec: creating it takes ~16 ms of a daemon's start-up, and nothing needs it
     * before `ray start` reports ready ({@link #warmUp()} makes it while the daemon waits for
     * its first client).
     */
    public static ObjectMapper json() {
        return Mapper.JSON;
    }

    private static final class Mapper {
        static final ObjectMapper JSON = new ObjectMapper();
    }

    /** Makes the mapper and runs one header through it each way, so that the first frame does not pay for them. */
    public static void warmUp() {
        try {
            parseHeader(WARM_UP_HEADER, 0, WARM_UP_HEADER.length);
            json().writeValueAsBytes(json().createObjectNode().put("op", "ping"));
        } catch (IOException | FrameException e) {
            throw new IllegalStateException("Jackson could not handle a fixed header", e);
        }
    }

    private static final byte[] WARM_UP_HEADER = "{\"op\":\"ping\",\"rid\":1}".getBytes(StandardCharsets.UTF_8);

    private final FrameLimits limits;
    private final PayloadBudget budget;

    /** A codec with a budget of its own, for a client of one daemon (CLI, tests). */
    public FrameCodec(FrameLimits limits) {
        this(limits, PayloadBudget.forThisHeap());
    }

    /** A codec that takes payload memory from {@code budget}, which a daemon shares among all its codecs. */
    public FrameCodec(FrameLimits limits, PayloadBudget budget) {
        this.limits = limits;
        this.budget = budget;
    }

    public FrameLimits limits() {
        return limits;
    }

    public PayloadBudget budget() {
        return budget;
    }

    /** This codec's budget with other limits (the head's door reads a join with a small header and no payload). */
    public FrameCodec withLimits(FrameLimits other) {
        return new FrameCodec(other, budget);
    }

    /**
     * Encodes a frame; {@code plen} is set from the payload (and removed when it is empty). A
     * relayable frame ({@link Frame#relay()}) whose tree was never built is written with the
     * header bytes it came with.
     */
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
        byte[] received = frame.wireHeader();
        if (received != null) return withPayload(ByteBuffer.wrap(received), frame);
        ObjectNode header = frame.header();
        if (frame.payload().length > 0) header.put("plen", frame.payload().length);
        else header.remove("plen");
        byte[] json;
        try {
            json = json().writeValueAsBytes(header);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("header not serializable", e);
        }
        return withPayload(prefixed(json), frame);
    }

    private static ByteBuffer prefixed(byte[] json) {
        return ByteBuffer.allocate(4 + json.length).putInt(json.length).put(json).flip();
    }

    private static ByteBuffer[] withPayload(ByteBuffer head, Frame frame) {
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
        byte[] prefix = new byte[4];
        prefix[0] = (byte) first;
        readFully(data, prefix, 1, 3, "frame length");
        int headerLen = headerLength(prefix);
        // The length prefix and the header in one array: a relayable frame goes out as it came.
        byte[] wire = Arrays.copyOf(prefix, 4 + headerLen);
        readFully(data, wire, 4, headerLen, "frame header");
        Head head = head(wire);
        return head.frame(readPayload(data, head.plen()));
    }

    /**
     * The header length a frame's 4-byte prefix announces, checked against the limits.
     *
     * @throws FrameException for 0 or more than {@code max_header_bytes}
     */
    public int headerLength(byte[] prefix) throws FrameException {
        long headerLen = ((prefix[0] & 0xffL) << 24) | ((prefix[1] & 0xffL) << 16) | ((prefix[2] & 0xffL) << 8)
                | (prefix[3] & 0xffL);
        if (headerLen == 0) throw new FrameException("frame header length is 0");
        if (headerLen > limits.maxHeaderBytes()) {
            throw new FrameException("frame header of " + headerLen + " bytes exceeds the limit of "
                    + limits.maxHeaderBytes() + " bytes (max_header_bytes)");
        }
        return (int) headerLen;
    }

    /**
     * What a frame's header says, before its payload is read: the relay fields of a call or
     * result (whose bytes go out as they came) or the parsed header, and the payload length.
     */
    public record Head(byte[] wire, RelayHeader relay, long cid, ObjectNode header, long plen) {
        /** The frame, once its {@link #plen()} payload bytes are in. */
        public Frame frame(byte[] payload) {
            return relay != null ? Frame.relayable(wire, relay, payload, cid) : new Frame(header, payload);
        }
    }

    /**
     * Decodes the prefix and header in {@code wire} (4 + header length bytes) and checks the
     * payload length against the limits.
     */
    public Head head(byte[] wire) throws FrameException {
        int headerLen = wire.length - 4;
        RelayHeader relay = RelayHeader.scan(wire, 4, headerLen);
        long cid = -1;
        if (relay == null && (cid = RelayHeader.leadingCid(wire, 4, headerLen)) >= 0) {
            // a plain call or result tagged on a node link: cut the tag, keep the fast path
            byte[] untagged = RelayHeader.withoutLeadingCid(wire);
            relay = RelayHeader.scan(untagged, 4, untagged.length - 4);
            if (relay != null) wire = untagged;
        }
        if (relay != null) {
            checkPayloadLimit(relay.plen());
            return new Head(wire, relay, cid, null, relay.plen());
        }
        ObjectNode header = parseHeader(wire, 4, headerLen);
        return new Head(wire, null, -1, header, payloadLength(header));
    }

    /** The payload, read into memory taken as its bytes arrive (PayloadBuffer), never all at once from plen. */
    private byte[] readPayload(DataInputStream data, long plen) throws IOException, FrameException {
        if (plen == 0) return Frame.NO_PAYLOAD;
        PayloadBuffer payload = new PayloadBuffer(budget, plen);
        try {
            while (!payload.complete()) {
                int n = data.read(payload.array(), payload.fill(), payload.room());
                if (n < 0) throw new FrameException("connection closed in the middle of the frame payload");
                payload.filled(n);
            }
            return payload.finish();
        } finally {
            payload.release();
        }
    }

    /** The JSON header in {@code bytes[offset, offset + length)} as a tree, checked to be an object with an op. */
    static ObjectNode parseHeader(byte[] bytes, int offset, int length) throws FrameException {
        JsonNode node;
        try {
            node = json().readTree(json().getFactory().createParser(bytes, offset, length));
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
        checkPayloadLimit(value);
        return value;
    }

    private void checkPayloadLimit(long plen) throws FrameException {
        if (plen > limits.maxPayloadBytes()) {
            throw new FrameException("payload of " + plen + " bytes exceeds the limit of "
                    + limits.maxPayloadBytes() + " bytes (max_payload_bytes)");
        }
    }

    private static void readFully(DataInputStream in, byte[] into, int off, int len, String what)
            throws IOException, FrameException {
        try {
            in.readFully(into, off, len);
        } catch (EOFException e) {
            throw new FrameException("connection closed in the middle of the " + what);
        }
    }
}
