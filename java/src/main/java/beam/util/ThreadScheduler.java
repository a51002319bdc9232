package beam.util;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The {@link Scheduler} of the running system: one platform daemon thread (started with the
 * first timer) that sleeps until the next one is due, on {@link System#nanoTime()}. A
 * cancelled timer leaves the queue at once, so thousands of deadlines that are met (every
 * handshake's) cost no memory.
 */
public final class ThreadScheduler implements Scheduler, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ThreadScheduler.class.getName());
    static final ThreadScheduler SHARED = new ThreadScheduler("beam-timer");

    private final ScheduledThreadPoolExecutor executor;

    ThreadScheduler(String threadName) {
        executor = new ScheduledThreadPoolExecutor(1, r -> Thread.ofPlatform().daemon().name(threadName).unstarted(r));
        executor.setRemoveOnCancelPolicy(true);
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public Timer after(long delayMillis, Runnable task) {
        return cancelling(executor.schedule(guarded(task), delayMillis, TimeUnit.MILLISECONDS));
    }

    @Override
    public Timer every(long periodMillis, Runnable task) {
        return cancelling(executor.scheduleAtFixedRate(guarded(task), periodMillis, periodMillis, TimeUnit.MILLISECONDS));
    }

    /** An exception out of a periodic task would end its schedule for good, silently. */
    private static Runnable guarded(Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (Throwable e) {
                LOG.log(Level.SEVERE, "a timer's task failed", e);
            }
        };
    }

    private static Timer cancelling(ScheduledFuture<?> future) {
        return () -> future.cancel(false);
    }

    /** Cancels every timer and ends the thread; timers asked for afterwards are refused. */
    @Override
    public void close() {
        executor.shutdownNow();
    }
}
