package beam.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.function.Supplier;

/**
 * The head's status view, made at most every {@link #MAX_AGE_MILLIS}: however many HTTP
 * clients and scrapes ask, the cluster lock (which every actor call takes) is taken for a
 * view a few times a second at most. Concurrent askers share one refresh.
 */
public final class CachedView implements Supplier<ObjectNode> {
    static final long MAX_AGE_MILLIS = 250;
    private final Supplier<ObjectNode> source;
    private ObjectNode last; // guarded by this
    private long madeNanos;

    public CachedView(Supplier<ObjectNode> source) {
        this.source = source;
    }

    @Override
    public synchronized ObjectNode get() {
        long now = System.nanoTime();
        if (last == null || now - madeNanos > MAX_AGE_MILLIS * 1_000_000) {
            last = source.get();
            madeNanos = now;
        }
        return last;
    }
}
