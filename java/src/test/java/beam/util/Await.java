package beam.util;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waits in tests on the condition a test checks, never on an assumed timing: a signal, a kill
 * or a process start takes effect when the (possibly loaded) machine gets round to it.
 */
public final class Await {
    /** Generous on purpose: a loaded 2-core machine may take seconds for what takes ms idle. */
    public static final Duration LONG = Duration.ofSeconds(30);

    private Await() {}

    /** Polls {@code condition} until it holds; fails naming {@code what} never happened. */
    public static void until(BooleanSupplier condition, String what) {
        until(condition, LONG, what);
    }

    /** As {@link #until(BooleanSupplier, String)}, with a bound of {@code within}. */
    public static void until(BooleanSupplier condition, Duration within, String what) {
        long deadline = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("never happened within " + within.toSeconds() + " s: " + what);
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting until " + what, e);
            }
        }
    }
}
