package beam.link;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The heartbeat clock of one daemon: every {@link Heartbeat#periodMillis()} a single platform
 * thread calls {@link Beating#beat()} on every link registered here (which sends its
 * {@code ping} and checks the peer's silence), rather than each link sleeping on a thread of
 * its own. One wake-up per period serves every link: an idle daemon costs next to nothing
 * (each wake-up of a virtual thread costs the carrier pool CPU; docs/PERFORMANCE.md, "Scale"),
 * and a head with a thousand links sends their pings in one pass.
 * The clock runs only while some link is registered: a head without joined nodes never wakes
 * for it.
 */
public final class Pulse implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(Pulse.class.getName());

    /** One link's part of a heartbeat; false when the link is over (lost or closed), which unregisters it. */
    @FunctionalInterface
    public interface Beating {
        boolean beat();
    }

    private final Set<Beating> links = ConcurrentHashMap.newKeySet();
    private final Heartbeat heartbeat;
    private final ScheduledThreadPoolExecutor clock;
    private ScheduledFuture<?> ticking; // guarded by this; null while no link is registered

    public Pulse(Heartbeat heartbeat, String name) {
        this.heartbeat = heartbeat;
        clock = new ScheduledThreadPoolExecutor(1, r -> Thread.ofPlatform().daemon().name(name).unstarted(r));
    }

    public synchronized void add(Beating link) {
        links.add(link);
        if (ticking == null && !clock.isShutdown()) {
            ticking = clock.scheduleAtFixedRate(this::tick, heartbeat.periodMillis(), heartbeat.periodMillis(),
                    TimeUnit.MILLISECONDS);
        }
    }

    /** Whether the clock is running (tests). */
    synchronized boolean ticking() {
        return ticking != null;
    }

    /** Number of links beating (tests). */
    int size() {
        return links.size();
    }

    private void tick() {
        for (Beating link : links) {
            try {
                if (!link.beat()) links.remove(link);
            } catch (Throwable e) { // one link's failure must not stop the others' heartbeats (an
                // exception out of a periodic task ends its schedule for good, silently)
                LOG.log(Level.SEVERE, "a link's heartbeat failed; it is no longer watched", e);
                links.remove(link);
            }
        }
        if (links.isEmpty()) {
            synchronized (this) {
                if (links.isEmpty() && ticking != null) { // the last link is over: stop waking
                    ticking.cancel(false);
                    ticking = null;
                }
            }
        }
    }

    @Override
    public void close() {
        clock.shutdownNow();
    }
}
