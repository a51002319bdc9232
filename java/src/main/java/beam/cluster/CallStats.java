package beam.cluster;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counts of actor calls routed by this head and of those that failed (the actor raised,
 * died, or did not exist), for the metrics' rates. LongAdders: counted on the call path
 * without a shared cache line between the threads that route calls.
 */
public final class CallStats {
    private final LongAdder calls = new LongAdder();
    private final LongAdder failed = new LongAdder();

    void call() {
        calls.increment();
    }

    /** A call's failure: from a worker's error result, or made here when the actor is gone. */
    public void failed() {
        failed.increment();
    }

    public long calls() {
        return calls.sum();
    }

    public long failedCalls() {
        return failed.sum();
    }
}
