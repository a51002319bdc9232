package beam.codec;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One protocol message: a JSON header object (always with an {@code "op"} string) and an
 * opaque payload. The payload is never interpreted by the daemon: it is cloudpickle bytes
 * made and read by Python, carried as-is.
 *
 * <p>A plain call or result read from a peer ({@link RelayHeader}) keeps its header bytes (with their length prefix)
 * and builds no JSON tree: the daemon routes it by {@link #relay()} and {@link FrameCodec}
 * writes those same bytes when it is forwarded. The first call of {@link #header()} builds
 * the tree and drops the bytes, since the caller may change the tree; from then on the frame
 * is written from the tree, like any frame made here.
 */
public final class Frame {
    public static final byte[] NO_PAYLOAD = new byte[0];

    private ObjectNode header; // null while only wireHeader is known
    private byte[] wireHeader; // length prefix + JSON header as received, until the tree is built
    private final RelayHeader relay;
    private final byte[] payload;

    public Frame(ObjectNode header, byte[] payload) {
        this(header, null, null, payload);
    }

    public Frame(ObjectNode header) {
        this(header, NO_PAYLOAD);
    }

    private Frame(ObjectNode header, byte[] wireHeader, RelayHeader relay, byte[] payload) {
        this.header = header;
        this.wireHeader = wireHeader;
        this.relay = relay;
        this.payload = payload == null ? NO_PAYLOAD : payload;
    }

    /**
     * A plain call or result as read: {@code wireHeader} is its u32 length prefix and JSON
     * header, which {@code relay} describes.
     */
    static Frame relayable(byte[] wireHeader, RelayHeader relay, byte[] payload) {
        return new Frame(null, wireHeader, relay, payload);
    }

    /** The header as a JSON tree (built on first use for a relayable frame). */
    public synchronized ObjectNode header() {
        if (header == null) {
            try {
                header = FrameCodec.parseHeader(wireHeader, 4, wireHeader.length - 4);
            } catch (FrameException e) {
                throw new IllegalStateException("a scanned header failed to parse", e);
            }
            wireHeader = null;
        }
        return header;
    }

    /** Length prefix and JSON header as received; null once {@link #header()} built the tree, and for frames made here. */
    synchronized byte[] wireHeader() {
        return wireHeader;
    }

    /** The plain call or result this frame was read as, or null for every other frame. */
    public RelayHeader relay() {
        return relay;
    }

    public byte[] payload() {
        return payload;
    }

    public String op() {
        return relay != null ? relay.op() : header().path("op").asText("");
    }
}
