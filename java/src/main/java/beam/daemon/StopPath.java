package beam.daemon;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;

/**
 * The one way a daemon (head or joined node) stops, in this order: stop taking new work,
 * stop the actors (waiting briefly for them), remove node.json, end the connections, and
 * last what answers health probes, so that they say "shutting down" until the end. It runs
 * once: whoever asks while it runs waits for it to finish, so a JVM shutdown hook and
 * `ray stop` can both call {@link #run}.
 */
final class StopPath {
    private static final Logger LOG = Logger.getLogger(StopPath.class.getName());

    /** What one daemon closes, step by step; a step must tolerate what start() did not get to make (nulls). */
    interface Steps {
        /** Listeners close; a joined node tells its head it leaves. */
        void stopAccepting();

        /** The actors this node runs end (killed or asked to stop, then awaited a little). */
        void stopActors();

        /** Clients' connections and node links end, once their actors are gone. */
        void closeConnections();

        /** The heartbeat clock and the HTTP face. */
        void closeLast();
    }

    private final AtomicBoolean started = new AtomicBoolean();
    private final CountDownLatch done = new CountDownLatch(1);
    private final SessionDir session;
    private final Steps steps;

    StopPath(SessionDir session, Steps steps) {
        this.session = session;
        this.steps = steps;
    }

    /** Whether the daemon is stopping (or stopped). */
    boolean stopping() {
        return started.get();
    }

    /** Stops on a thread of its own; returns at once. */
    void request() {
        if (!started.get()) Thread.ofPlatform().name("shutdown").start(this::run);
    }

    /** Stops, or waits for the stop in progress; returns once stopped. */
    void run() {
        if (!started.compareAndSet(false, true)) {
            awaitDone();
            return;
        }
        try {
            steps.stopAccepting();
            steps.stopActors();
            session.removeNodeJson();
            steps.closeConnections();
            steps.closeLast();
            LOG.info("beam daemon stopped");
        } finally {
            done.countDown();
        }
    }

    void await() throws InterruptedException {
        done.await();
    }

    private void awaitDone() {
        try {
            done.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
