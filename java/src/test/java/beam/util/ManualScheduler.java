package beam.util;

import java.util.PriorityQueue;
import java.util.function.IntPredicate;

/**
 * A {@link Scheduler} whose time moves only when a test says so ({@link #advance}): timers
 * run on the advancing thread, in due order, so time-based behaviour is tested without
 * sleeping and without races against a clock.
 */
public final class ManualScheduler implements Scheduler {
    private final class Entry implements Timer, Comparable<Entry> {
        final long seq = nextSeq++;
        final Runnable task;
        final long periodNanos; // 0: once
        long dueNanos;
        boolean cancelled;

        Entry(Runnable task, long dueNanos, long periodNanos) {
            this.task = task;
            this.dueNanos = dueNanos;
            this.periodNanos = periodNanos;
        }

        @Override
        public void cancel() {
            synchronized (ManualScheduler.this) {
                cancelled = true;
                queue.remove(this);
                ManualScheduler.this.notifyAll();
            }
        }

        @Override
        public int compareTo(Entry o) {
            int byTime = Long.compare(dueNanos, o.dueNanos);
            return byTime != 0 ? byTime : Long.compare(seq, o.seq);
        }
    }

    private final PriorityQueue<Entry> queue = new PriorityQueue<>();
    private static final long START_NANOS = 1_000_000_000L; // not 0: code may take 0 for "never"
    /** The wall time at {@link #START_NANOS}: a fixed date, so that wall readings move only with {@link #advance}. */
    private static final long START_WALL_MILLIS = 1_750_000_000_000L;
    private long nowNanos = START_NANOS;
    private long nextSeq;

    @Override
    public synchronized long nanoTime() {
        return nowNanos;
    }

    @Override
    public synchronized long wallMillis() {
        return START_WALL_MILLIS + (nowNanos - START_NANOS) / 1_000_000;
    }

    @Override
    public synchronized Timer after(long delayMillis, Runnable task) {
        return add(new Entry(task, nowNanos + delayMillis * 1_000_000, 0));
    }

    @Override
    public synchronized Timer every(long periodMillis, Runnable task) {
        if (periodMillis <= 0) throw new IllegalArgumentException("period must be > 0, got " + periodMillis);
        return add(new Entry(task, nowNanos + periodMillis * 1_000_000, periodMillis * 1_000_000));
    }

    private Entry add(Entry e) {
        queue.add(e);
        notifyAll();
        return e;
    }

    /** Timers waiting to run. */
    public synchronized int pending() {
        return queue.size();
    }

    /**
     * Waits (really, up to {@code timeoutMillis}) until other threads have asked for or
     * cancelled timers so that the number pending satisfies {@code until}.
     */
    public synchronized void awaitPending(IntPredicate until, long timeoutMillis) throws InterruptedException {
        long end = System.nanoTime() + timeoutMillis * 1_000_000;
        while (!until.test(queue.size())) {
            long left = (end - System.nanoTime()) / 1_000_000;
            if (left <= 0) throw new AssertionError(queue.size() + " timers pending after " + timeoutMillis + " ms");
            wait(left);
        }
    }

    /** Moves time forward by {@code millis}, running every timer that falls due, each at its time. */
    public void advance(long millis) {
        long target;
        synchronized (this) {
            target = nowNanos + millis * 1_000_000;
        }
        while (true) {
            Entry due;
            synchronized (this) {
                due = queue.peek();
                if (due == null || due.dueNanos > target) {
                    nowNanos = target;
                    return;
                }
                queue.poll();
                nowNanos = due.dueNanos;
                if (due.periodNanos > 0) {
                    due.dueNanos += due.periodNanos;
                    queue.add(due);
                }
            }
            due.task.run();
        }
    }
}
