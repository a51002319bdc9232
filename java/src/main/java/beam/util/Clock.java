package beam.util;

/**
 * A clock: monotonic nanoseconds for durations and deadlines, and the wall time in epoch
 * milliseconds for what is shown as a date ({@link System#nanoTime()} and
 * {@link System#currentTimeMillis()} in the daemon, a hand-moved one in tests).
 */
@FunctionalInterface
public interface Clock {
    Clock SYSTEM = System::nanoTime;

    long nanoTime();

    /** The wall time, epoch milliseconds; a clock moved by hand overrides it so that both readings move together. */
    default long wallMillis() {
        return System.currentTimeMillis();
    }

    /** Whole milliseconds since {@code startNanos}, a reading of this clock. */
    default long millisSince(long startNanos) {
        return (nanoTime() - startNanos) / 1_000_000;
    }
}
