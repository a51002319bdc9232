package beam.http;

import java.util.function.Supplier;

/**
 * The head's snapshot of the cluster, made at most every {@link #MAX_AGE_MILLIS}: however many HTTP
 * clients and scrapes ask, the cluster lock (which every actor call takes) is taken for a
 * snapshot a few times a second at most. Concurrent askers share one refresh.
 */
public final class CachedView<T> implements Supplier<T> {
    static final long MAX_AGE_MILLIS = 250;
    private final Supplier<T> source;
    private T last; // guarded by this
    private long madeNanos;

    public CachedView(Supplier<T> source) {
        this.source = source;
    }

    @Override
    public synchronized T get() {
        long now = System.nanoTime();
        if (last == null || now - madeNanos > MAX_AGE_MILLIS * 1_000_000) {
            last = source.get();
            madeNanos = now;
        }
        return last;
    }
}
