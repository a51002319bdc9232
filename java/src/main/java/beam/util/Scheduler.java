package beam.util;

/**
 * What runs later: handshake and join deadlines, the forced close after a flush grace,
 * heartbeats, the placement-group tick, the HTTP face's deferred bind, the CLI's reply
 * timeout, the worker-exit grace. The daemon's timers go through this interface, and the
 * domain (cluster/) reads time only on the one its Cluster is made with, so that a test
 * drives time by hand (a manual scheduler in the tests) instead of sleeping, and the daemon
 * holds no thread per waiting timer.
 *
 * <p>Tasks run on the scheduler's one thread, in due order: they must be short and must not
 * wait for anyone. A task that may take long (binding the HTTP servers) starts a thread of
 * its own.
 */
public interface Scheduler extends Clock {
    /** A scheduled task; cancelling one that ran or was cancelled does nothing. */
    @FunctionalInterface
    interface Timer {
        void cancel();
    }

    /** Runs {@code task} once, {@code delayMillis} from now. */
    Timer after(long delayMillis, Runnable task);

    /**
     * Runs {@code task} every {@code periodMillis}, the first time one period from now, at a
     * fixed rate, until cancelled. A task that throws is logged and keeps its schedule.
     */
    Timer every(long periodMillis, Runnable task);

    /** The process's shared scheduler: one daemon thread, started by the first timer. */
    static Scheduler system() {
        return ThreadScheduler.SHARED;
    }

    /**
     * A scheduler with a thread of its own named {@code name}, for timers that must not wait
     * behind anyone else's (heartbeats); {@link ThreadScheduler#close()} ends it.
     */
    static ThreadScheduler onThread(String name) {
        return new ThreadScheduler(name);
    }
}
