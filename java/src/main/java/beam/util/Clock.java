package beam.util;

/** A monotonic clock: {@link System#nanoTime()} in the daemon, a hand-moved one in tests. */
@FunctionalInterface
public interface Clock {
    Clock SYSTEM = System::nanoTime;

    long nanoTime();

    /** Whole milliseconds since {@code startNanos}, a reading of this clock. */
    default long millisSince(long startNanos) {
        return (nanoTime() - startNanos) / 1_000_000;
    }
}
