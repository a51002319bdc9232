package beam.link;

import beam.util.Clock;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Liveness of one link. Each end sends a {@code ping} every {@code periodMillis}; any frame
 * received counts as a sign of life. The peer is lost when nothing arrived for
 * {@code timeoutMillis} (default 2.5 s, so a node is declared dead within 3 s). A closed
 * socket is noticed at once without waiting for the timeout.
 *
 * @param periodMillis  how often to send a ping
 * @param timeoutMillis silence after which the peer is lost
 */
public record Heartbeat(long periodMillis, long timeoutMillis) {
    public static final Heartbeat DEFAULT = new Heartbeat(500, 2_500);

    public Heartbeat {
        if (periodMillis <= 0 || timeoutMillis <= periodMillis) {
            throw new IllegalArgumentException("the node timeout must be longer than the heartbeat period");
        }
    }

    /** Last time a frame arrived, on a {@link Clock}; shared by the reader and the checker. */
    public static final class LastSeen {
        private final Clock clock;
        private final AtomicLong nanos;

        public LastSeen() {
            this(Clock.SYSTEM);
        }

        /** On {@code clock}: the one its link's {@link Pulse} beats on ({@link Pulse#clock()}). */
        public LastSeen(Clock clock) {
            this.clock = clock;
            this.nanos = new AtomicLong(clock.nanoTime());
        }

        public void touch() {
            nanos.set(clock.nanoTime());
        }

        public long silentMillis() {
            return clock.millisSince(nanos.get());
        }
    }
}
