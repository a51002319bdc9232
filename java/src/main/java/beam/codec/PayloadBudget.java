package beam.codec;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes of payload that one daemon holds for frames still arriving, across every
 * connection it reads (unix clients, node links, the TCP door). A payload's memory is taken
 * from here as its bytes come in ({@link PayloadBuffer}), never from the length a peer
 * announced, and given back once the frame is whole (it is then the handler's) or the
 * connection ends. So a thousand peers that announce a gigabyte each and send nothing cost
 * nothing, and those that do send are stopped together at this bound instead of at the
 * heap's end, where the daemon's own threads would fail too.
 */
public final class PayloadBudget {
    /** The default share of the daemon's heap that payloads in flight may take. */
    static final int DEFAULT_HEAP_SHARE_PERCENT = 50;

    private final long limit;
    private final AtomicLong taken = new AtomicLong();

    public PayloadBudget(long limit) {
        if (limit < 1) throw new IllegalArgumentException("a payload budget must be >= 1 byte");
        this.limit = limit;
    }

    /** Half of this JVM's maximum heap: the rest is for the daemon's own state and the frames it holds. */
    public static PayloadBudget forThisHeap() {
        return new PayloadBudget(Runtime.getRuntime().maxMemory() / 100 * DEFAULT_HEAP_SHARE_PERCENT);
    }

    public long limit() {
        return limit;
    }

    /** Bytes taken now (tests, diagnostics). */
    public long taken() {
        return taken.get();
    }

    /** Takes {@code bytes} if that keeps the total within the limit; false (and nothing taken) if not. */
    boolean tryTake(long bytes) {
        for (long now = taken.get(); ; now = taken.get()) {
            if (now + bytes > limit) return false;
            if (taken.compareAndSet(now, now + bytes)) return true;
        }
    }

    void give(long bytes) {
        taken.addAndGet(-bytes);
    }
}
