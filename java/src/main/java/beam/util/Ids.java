package beam.util;

import java.security.SecureRandom;
import java.util.HexFormat;

/** Random hex ids with Ray's lengths (docs/PROTOCOL.md, "Identifiers"). */
public final class Ids {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final HexFormat HEX = HexFormat.of();

    private Ids() {
    }

    public static String randomHex(int bytes) {
        byte[] b = new byte[bytes];
        RANDOM.nextBytes(b);
        return HEX.formatHex(b);
    }

    public static String nodeId() {
        return randomHex(28);
    }

    /** Ray prints job ids as the little-endian bytes of a counter: job 1 is "01000000". */
    public static String jobId(int counter) {
        return HEX.formatHex(new byte[] {(byte) counter, (byte) (counter >>> 8), (byte) (counter >>> 16), (byte) (counter >>> 24)});
    }

    public static boolean isHex(String s, int chars) {
        if (s == null || s.length() != chars) return false;
        for (int i = 0; i < s.length(); i++) {
            if (Character.digit(s.charAt(i), 16) < 0) return false;
        }
        return true;
    }
}
