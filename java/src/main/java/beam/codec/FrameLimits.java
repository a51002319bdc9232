package beam.codec;

/**
 * Upper bounds checked before any buffer is allocated, so a peer cannot make the daemon
 * allocate memory it announced but never sends.
 *
 * @param maxHeaderBytes  largest JSON header accepted (default 1 MiB)
 * @param maxPayloadBytes largest payload accepted (default 1 GiB)
 */
public record FrameLimits(int maxHeaderBytes, long maxPayloadBytes) {
    public static final FrameLimits DEFAULT = new FrameLimits(1 << 20, 1L << 30);

    public FrameLimits {
        if (maxHeaderBytes < 16) throw new IllegalArgumentException("maxHeaderBytes must be >= 16");
        if (maxPayloadBytes < 0 || maxPayloadBytes > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("maxPayloadBytes must be in [0, 2^31-17]");
        }
    }

    /**
     * Why a frame with a header of {@code headerLen} bytes and a payload of {@code plen}
     * would be refused by a receiver with these limits, or null if it would not.
     */
    public String violation(int headerLen, long plen) {
        if (headerLen > maxHeaderBytes) {
            return "its header of " + headerLen + " bytes exceeds the receiver's limit of " + maxHeaderBytes
                    + " bytes (max_header_bytes)";
        }
        if (plen > maxPayloadBytes) {
            return "its payload of " + plen + " bytes exceeds the receiver's limit of " + maxPayloadBytes
                    + " bytes (max_payload_bytes)";
        }
        return null;
    }
}
