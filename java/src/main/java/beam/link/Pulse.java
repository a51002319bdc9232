package beam.link;

import beam.util.Scheduler;
import beam.util.ThreadScheduler;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The heartbeat clock of one daemon: every {@link Heartbeat#periodMillis()} one timer calls
 * {@link Beating#beat()} on every link registered here (which sends its {@code ping} and
 * checks the peer's silence), rather than each link sleeping on a thread of its own. One
 * wake-up per period serves every link: an idle daemon costs next to nothing (a virtual
 * thread's wake-up costs the carrier pool CPU, docs/DESIGN.md, "Threads"), and a head with a
 * thousand links sends their pings in one pass.
 * The timer runs only while some link is registered: a head without joined nodes never wakes
 * for it. A daemon's pulse has a scheduler thread of its own, so that heartbeats never wait
 * behind another timer's task.
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
    private final Scheduler scheduler;
    private final ThreadScheduler owned; // the scheduler this pulse made (and closes), or null
    private Scheduler.Timer ticking; // guarded by this; null while no link is registered
    private boolean closed; // guarded by this

    /** On a scheduler thread of its own, named {@code name}. */
    public Pulse(Heartbeat heartbeat, String name) {
        this(heartbeat, Scheduler.onThread(name), true);
    }

    /** On {@code scheduler}, which stays open after {@link #close()} (tests drive a manual one). */
    public Pulse(Heartbeat heartbeat, Scheduler scheduler) {
        this(heartbeat, scheduler, false);
    }

    private Pulse(Heartbeat heartbeat, Scheduler scheduler, boolean own) {
        this.heartbeat = heartbeat;
        this.scheduler = scheduler;
        this.owned = own ? (ThreadScheduler) scheduler : null;
    }

    /** The clock the beats run on: a link's {@link Heartbeat.LastSeen} should read the same one. */
    public Scheduler clock() {
        return scheduler;
    }

    public synchronized void add(Beating link) {
        links.add(link);
        if (ticking == null && !closed) ticking = scheduler.every(heartbeat.periodMillis(), this::tick);
    }

    /** Whether the timer is running (tests). */
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
            } catch (Throwable e) { // one link's failure must not stop the others' heartbeats
                LOG.log(Level.SEVERE, "a link's heartbeat failed; it is no longer watched", e);
                links.remove(link);
            }
        }
        if (links.isEmpty()) {
            synchronized (this) {
                if (links.isEmpty() && ticking != null) { // the last link is over: stop waking
                    ticking.cancel();
                    ticking = null;
                }
            }
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (ticking != null) ticking.cancel();
        ticking = null;
        if (owned != null) owned.close();
    }
}
