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
    /** The client id a plain call or result carried on a node link (removed from wireHeader), else -1. */
    private final long linkCid;

    public Frame(ObjectNode header, byte[] payload) {
        this(header, null, null, payload);
    }

    public Frame(ObjectNode header) {
        this(header, NO_PAYLOAD);
    }

    private Frame(ObjectNode header, byte[] wireHeader, RelayHeader relay, byte[] payload, long linkCid) {
        this.header = header;
        this.wireHeader = wireHeader;
        this.relay = relay;
        this.payload = payload == null ? NO_PAYLOAD : payload;
        this.linkCid = linkCid;
    }

    private Frame(ObjectNode header, byte[] wireHeader, RelayHeader relay, byte[] payload) {
        this(header, wireHeader, relay, payload, -1);
    }

    /**
     * A plain call or result as read: {@code wireHeader} is its u32 length prefix and JSON
     * header, which {@code relay} describes; {@code linkCid} the client id it was tagged with
     * on a node link (already cut from {@code wireHeader}), or -1.
     */
    static Frame relayable(byte[] wireHeader, RelayHeader relay, byte[] payload, long linkCid) {
        return new Frame(null, wireHeader, relay, payload, linkCid);
    }

    /**
     * The client id of a plain call or result read from a node link, where it came as the
     * header's first field ({@link #taggedWith}); -1 for every other frame, whose {@code cid},
     * if any, is in {@link #header()}.
     */
    public long linkCid() {
        return linkCid;
    }

    /**
     * A copy of this frame tagged with a node-link client id (docs/PROTOCOL.md, "After the
     * join"). A plain call or result gets {@code "cid": N} spliced in as its first field, on
     * the bytes; any other frame gets it in a copy of its tree.
     */
    public Frame taggedWith(long cid) {
        byte[] wire = wireHeader();
        if (wire != null && wire.length > 5 && wire[4] == '{') {
            byte[] field = ("{\"cid\":" + cid + ",").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            int headerLen = wire.length - 4 - 1 + field.length;
            byte[] tagged = new byte[4 + headerLen];
            java.nio.ByteBuffer.wrap(tagged).putInt(headerLen).put(field).put(wire, 5, wire.length - 5);
            return new Frame(null, tagged, relay, payload);
        }
        ObjectNode h = header().deepCopy();
        h.put("cid", cid);
        return new Frame(h, payload);
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
