package beam.connection;

import java.util.logging.Logger;

/**
 * The wait after an accept failed while its listener is open: most causes clear up by
 * themselves (too many open files, until a connection closes), so the accept thread waits
 * and retries, doubling the wait from 10 ms up to 1 s; logged when a streak starts and at
 * every 1 s wait, so a lasting problem stays visible without flooding the log. The accept
 * thread sleeps itself: it has nothing else to do until the retry.
 */
final class AcceptBackoff {
    private static final Logger LOG = Logger.getLogger(AcceptBackoff.class.getName());
    static final long FIRST_MILLIS = 10;
    static final long MAX_MILLIS = 1_000;

    private final String listener;
    /** The current wait (accept thread only; 0 after a success). */
    private long millis;

    AcceptBackoff(String listener) {
        this.listener = listener;
    }

    /** Waits before the next accept after {@code e}; false if interrupted (the listener is closing). */
    boolean waitAfter(Exception e) {
        millis = millis == 0 ? FIRST_MILLIS : Math.min(millis * 2, MAX_MILLIS);
        if (millis == FIRST_MILLIS || millis == MAX_MILLIS) {
            LOG.warning("accept failed on " + listener + " (" + e + "); retrying in " + millis + " ms");
        }
        try {
            Thread.sleep(millis);
            return true;
        } catch (InterruptedException ie) {
            return false;
        }
    }

    /** An accept succeeded: the next failure starts a new streak. */
    void reset() {
        millis = 0;
    }
}
