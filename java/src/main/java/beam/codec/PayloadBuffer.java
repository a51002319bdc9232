package beam.codec;

import java.util.Arrays;

/**
 * The array one frame's payload is read into, grown as its bytes arrive: it starts at
 * {@link #FIRST_BYTES} (or the whole payload, if smaller) and doubles, up to the length the
 * header announced, taking each growth from the daemon's {@link PayloadBudget} first. The
 * last growth makes it exactly that length, so the finished array is the frame's payload
 * with no copy at the end; the doublings copy at most as many bytes as the payload has.
 *
 * <p>Not thread-safe: one reader fills it. {@link #release} must follow, once, whether the
 * payload was finished or abandoned.
 */
final class PayloadBuffer {
    static final int FIRST_BYTES = 64 * 1024;

    private final PayloadBudget budget;
    private final long length;
    private byte[] bytes;
    private int fill;
    private long held;

    PayloadBuffer(PayloadBudget budget, long length) throws FrameException {
        this.budget = budget;
        this.length = length;
        this.bytes = new byte[0];
        grow();
    }

    /** Room left in the array now (at least 1 until the payload is complete). */
    int room() {
        return bytes.length - fill;
    }

    byte[] array() {
        return bytes;
    }

    int fill() {
        return fill;
    }

    /** Counts {@code n} bytes written at {@link #fill()}; grows the array when it is full and more are due. */
    void filled(int n) throws FrameException {
        fill += n;
        if (fill == bytes.length && fill < length) grow();
    }

    boolean complete() {
        return fill == length;
    }

    /** The finished payload; the budget is given back (the frame's memory is its handler's now). */
    byte[] finish() {
        release();
        return bytes;
    }

    /** Gives back what this buffer took from the budget; idempotent. */
    void release() {
        budget.give(held);
        held = 0;
    }

    private void grow() throws FrameException {
        long next = Math.min(length, Math.max(FIRST_BYTES, 2L * bytes.length));
        long more = next - bytes.length;
        if (!budget.tryTake(more)) {
            throw new FrameException("payload of " + length + " bytes does not fit in the daemon's payload budget now ("
                    + (budget.limit() >> 20) + " MiB for all frames arriving at once, half its heap); retry, or send it "
                    + "in smaller parts");
        }
        held += more;
        try {
            bytes = Arrays.copyOf(bytes, (int) next);
        } catch (OutOfMemoryError e) {
            release();
            throw new FrameException("payload of " + length + " bytes does not fit in the daemon's memory now (max heap "
                    + (Runtime.getRuntime().maxMemory() >> 20) + " MiB); send it in smaller parts");
        }
    }
}
