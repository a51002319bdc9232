package beam.codec;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.Predicate;

/**
 * Decodes the frames of one byte stream from chunks as they arrive, for a reader that must
 * not block (one thread reading many sockets). Same rules and errors as
 * {@link FrameCodec#decode}, which reads a blocking stream; both share {@link FrameCodec#head}.
 *
 * <p>State, per frame: PREFIX (the 4-byte length) -> HEADER (the JSON header, into an array
 * that keeps the prefix in front) -> PAYLOAD (the length the header gave; skipped when 0) ->
 * the frame goes to the sink and the next one starts at PREFIX. No buffer is allocated
 * before the limits have been checked, and a payload's memory grows with the bytes that
 * have come ({@link PayloadBuffer}), against the codec's {@link PayloadBudget}.
 */
public final class FrameAssembler {
    private final FrameCodec codec;
    private final byte[] prefix = new byte[4];
    private int prefixFill;
    /** The prefix and header being filled (HEADER), or null (PREFIX). */
    private byte[] wire;
    private int wireFill;
    /** The decoded header whose payload is being filled (PAYLOAD), or null. */
    private FrameCodec.Head head;
    /** The payload being filled (PAYLOAD with plen > 0), or null. */
    private PayloadBuffer payload;

    public FrameAssembler(FrameCodec codec) {
        this.codec = codec;
    }

    /**
     * Consumes all of {@code in}, handing each completed frame to {@code sink} in order.
     * Returns false as soon as the sink does (the bytes after that frame are dropped).
     *
     * @throws FrameException for a framing violation; the stream cannot be read further
     */
    public boolean feed(ByteBuffer in, Predicate<Frame> sink) throws FrameException {
        while (in.hasRemaining()) {
            if (head != null) {
                int n = Math.min(in.remaining(), payload.room());
                in.get(payload.array(), payload.fill(), n);
                payload.filled(n);
                if (!payload.complete()) continue;
                if (!emit(sink, payload.finish())) return false;
            } else if (wire != null) {
                int n = Math.min(in.remaining(), wire.length - wireFill);
                in.get(wire, wireFill, n);
                wireFill += n;
                if (wireFill < wire.length) return true;
                head = codec.head(wire);
                wire = null;
                if (head.plen() > 0) payload = new PayloadBuffer(codec.budget(), head.plen());
                else if (!emit(sink, Frame.NO_PAYLOAD)) return false;
            } else {
                int n = Math.min(in.remaining(), 4 - prefixFill);
                in.get(prefix, prefixFill, n);
                prefixFill += n;
                if (prefixFill < 4) return true;
                wire = Arrays.copyOf(prefix, 4 + codec.headerLength(prefix));
                wireFill = 4;
                prefixFill = 0;
            }
        }
        return true;
    }

    private boolean emit(Predicate<Frame> sink, byte[] bytes) {
        Frame frame = head.frame(bytes);
        head = null;
        payload = null;
        return sink.test(frame);
    }

    /**
     * Gives back the budget a payload still arriving holds: call once the stream is not read
     * any more (its end, an error, a close). Idempotent.
     */
    public void release() {
        if (payload != null) payload.release();
    }

    /**
     * At the end of the stream: null when it ended between frames, else the same error
     * {@link FrameCodec#decode} gives for a stream cut in the middle of a frame.
     */
    public FrameException endOfStream() {
        String what = head != null ? "frame payload" : wire != null ? "frame header" : prefixFill > 0 ? "frame length" : null;
        return what == null ? null : new FrameException("connection closed in the middle of the " + what);
    }
}
