package beam.codec;

import beam.util.CallLabel;
import beam.util.Ids;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The header of a plain actor call or result, read without building a JSON tree: the two
 * messages of every actor call, which the daemon only routes. A header
 * is <em>plain</em> when it holds exactly the fields below, each of its type, ids of the right
 * length in hex, and nothing else:
 * <pre>
 *   {"op": "call",   "actor_id": 32 hex, "oid": 56 hex, "method": string, "label"?: string, "plen"?: integer}
 *   {"op": "result", "oid": 56 hex, "status": string, "plen"?: integer}
 * </pre>
 * Such a frame is forwarded with its header bytes unchanged (docs/PROTOCOL.md, "Calls"), so
 * the daemon neither builds nor writes JSON for it. Any other header, including a call or
 * result with an extra or malformed field, gets {@code null} from {@link #scan} and takes
 * the general path: a JSON tree, checked by {@code beam.protocol.Request}, which names what
 * is wrong.
 *
 * @param method the method name (calls), else null
 * @param label  the call's label (calls that have one: 1 to 64 printable ASCII characters), else null
 * @param status the result status (results), else null
 * @param actorId the callee (calls), else null
 */
public record RelayHeader(String op, String actorId, String oid, String method, String label, String status, long plen) {
    private static final int OP = 1, ACTOR_ID = 2, OID = 4, METHOD = 8, STATUS = 16, PLEN = 32, LABEL = 64;
    private static final int CALL = OP | ACTOR_ID | OID | METHOD, RESULT = OP | OID | STATUS;
    private static final byte[][] NAMES = {ascii("op"), ascii("actor_id"), ascii("oid"), ascii("method"),
        ascii("status"), ascii("plen"), ascii("label")};

    public boolean isCall() {
        return "call".equals(op);
    }

    /**
     * The plain call or result in {@code json[offset, offset + length)}, or null when it is
     * anything else. This reads a strict subset of JSON by hand, not with Jackson: a Jackson
     * parser allocates about a kilobyte of state per header, which at two headers per call set
     * the daemon's young-GC rate (docs/PERFORMANCE.md, "Garbage per call"). Whatever falls
     * outside the subset (escapes, non-ASCII text, numbers other than a plain non-negative
     * int) returns null, and the general path parses it with Jackson, so no header is ever read
     * differently from how a JSON parser reads it.
     */
    public static RelayHeader scan(byte[] json, int offset, int length) {
        Scanner in = new Scanner(json, offset, offset + length);
        if (!in.take('{')) return null;
        String op = null, actorId = null, oid = null, method = null, label = null, status = null;
        long plen = 0;
        int seen = 0;
        if (!in.take('}')) {
            do {
                int field = in.fieldName();
                if (field == 0 || (seen & field) != 0 || !in.take(':')) return null; // unknown or repeated
                seen |= field;
                if (field == PLEN) {
                    plen = in.plainInt();
                    if (plen < 0) return null;
                    continue;
                }
                String value = in.asciiString();
                if (value == null) return null;
                switch (field) {
                    case OP -> op = value;
                    case ACTOR_ID -> actorId = value;
                    case OID -> oid = value;
                    case METHOD -> method = value;
                    case LABEL -> label = value;
                    default -> status = value;
                }
            } while (in.take(','));
            if (!in.take('}')) return null;
        }
        if (!in.atEnd()) return null;
        int fields = seen & ~PLEN & ~LABEL;
        if (label != null && !CallLabel.isValid(label)) return null; // the general path names what is wrong
        if ("call".equals(op) && fields == CALL && Ids.isHex(actorId, 32) && Ids.isHex(oid, 56)) {
            return new RelayHeader(op, actorId, oid, method, label, null, plen);
        }
        if ("result".equals(op) && fields == RESULT && label == null && Ids.isHex(oid, 56)) {
            return new RelayHeader(op, null, oid, null, null, status, plen);
        }
        return null;
    }

    private static final byte[] CID_FIELD = ascii("{\"cid\":");

    /**
     * The client id when the header in {@code json[offset, offset + length)} starts with
     * exactly {@code {"cid":N,} (N a plain non-negative integer of at most 18 digits), as
     * {@link Frame#taggedWith} writes it on node links; else -1.
     */
    static long leadingCid(byte[] json, int offset, int length) {
        int end = offset + length;
        int i = offset + CID_FIELD.length;
        if (i >= end || !Arrays.equals(json, offset, i, CID_FIELD, 0, CID_FIELD.length)) return -1;
        long cid = 0;
        int start = i;
        while (i < end && json[i] >= '0' && json[i] <= '9' && i - start < 18) cid = cid * 10 + (json[i++] - '0');
        if (i == start || i >= end || json[i] != ',' || (json[start] == '0' && i - start > 1)) return -1;
        return cid;
    }

    /** A length-prefixed header that {@link #leadingCid} accepted, without that first field. */
    static byte[] withoutLeadingCid(byte[] wire) {
        int comma = 4 + CID_FIELD.length;
        while (wire[comma] != ',') comma++;
        int headerLen = wire.length - 4 - (comma - 4); // drop '{"cid":N' and keep '{' in place of ','
        byte[] out = new byte[4 + headerLen];
        java.nio.ByteBuffer.wrap(out).putInt(headerLen).put((byte) '{').put(wire, comma + 1, wire.length - comma - 1);
        return out;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** A cursor over the header bytes; every method skips JSON whitespace first. */
    private static final class Scanner {
        private final byte[] b;
        private final int end;
        private int i;

        Scanner(byte[] b, int start, int end) {
            this.b = b;
            this.i = start;
            this.end = end;
        }

        private void skipSpace() {
            while (i < end && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r')) i++;
        }

        boolean take(char c) {
            skipSpace();
            if (i < end && b[i] == c) {
                i++;
                return true;
            }
            return false;
        }

        boolean atEnd() {
            skipSpace();
            return i == end;
        }

        /** The bounds of a string without escapes or non-ASCII bytes: [start, i - 1); -1 if it is not one. */
        private int stringStart() {
            if (!take('"')) return -1;
            int start = i;
            while (i < end) {
                byte c = b[i++];
                if (c == '"') return start;
                if (c == '\\' || c < 0x20) return -1; // escapes (and bytes >= 0x80, negative here) are not in the subset
            }
            return -1;
        }

        /** The field bit of the name at the cursor, or 0 for any other name. */
        int fieldName() {
            int start = stringStart();
            if (start < 0) return 0;
            int len = i - 1 - start;
            for (int f = 0; f < NAMES.length; f++) {
                if (Arrays.equals(b, start, start + len, NAMES[f], 0, NAMES[f].length)) return 1 << f;
            }
            return 0;
        }

        String asciiString() {
            int start = stringStart();
            return start < 0 ? null : new String(b, start, i - 1 - start, StandardCharsets.ISO_8859_1);
        }

        /** A JSON integer 0..Integer.MAX_VALUE without sign, fraction or exponent; -1 otherwise. */
        long plainInt() {
            skipSpace();
            int start = i;
            long v = 0;
            while (i < end && b[i] >= '0' && b[i] <= '9' && i - start < 10) v = v * 10 + (b[i++] - '0');
            int digits = i - start;
            if (digits == 0 || (digits > 1 && b[start] == '0') || v > Integer.MAX_VALUE) return -1;
            if (i < end && (b[i] == '.' || b[i] == 'e' || b[i] == 'E' || (b[i] >= '0' && b[i] <= '9'))) return -1;
            return v;
        }
    }
}
