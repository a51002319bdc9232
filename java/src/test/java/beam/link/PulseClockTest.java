package beam.link;

import static org.assertj.core.api.Assertions.assertThat;

import beam.util.ManualScheduler;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Heartbeats and missed-beat detection on a hand-moved clock: every beat at its time, no sleeping. */
class PulseClockTest {
    private final ManualScheduler clock = new ManualScheduler();
    private final Heartbeat heartbeat = new Heartbeat(500, 2_500);

    @Test
    void linksBeatOncePerPeriodAndTheTimerStopsWithTheLastLink() {
        try (Pulse pulse = new Pulse(heartbeat, clock)) {
            AtomicInteger beats = new AtomicInteger();
            pulse.add(() -> beats.incrementAndGet() < 4); // over after its fourth beat
            clock.advance(499);
            assertThat(beats.get()).isZero();
            clock.advance(1);
            assertThat(beats.get()).isEqualTo(1);
            clock.advance(1_000);
            assertThat(beats.get()).isEqualTo(3);
            assertThat(pulse.ticking()).isTrue();
            clock.advance(500);
            assertThat(beats.get()).isEqualTo(4);
            assertThat(pulse.ticking()).isFalse();
            assertThat(clock.pending()).as("no timer while no link beats").isZero();
            clock.advance(5_000);
            assertThat(beats.get()).isEqualTo(4);
            pulse.add(() -> true);
            assertThat(clock.pending()).isEqualTo(1);
        }
        assertThat(clock.pending()).as("closed: its timer is cancelled").isZero();
    }

    @Test
    void aSilentPeerIsLostAtTheFirstBeatAfterTheTimeoutAndAFrameResetsTheSilence() {
        try (Pulse pulse = new Pulse(heartbeat, clock)) {
            Heartbeat.LastSeen lastSeen = new Heartbeat.LastSeen(pulse.clock());
            AtomicLong lostAt = new AtomicLong(-1);
            long start = clock.nanoTime();
            pulse.add(() -> { // what HeadLinkToMember.beat does: lost after too long a silence, else ping
                if (lastSeen.silentMillis() > heartbeat.timeoutMillis()) {
                    lostAt.set(clock.millisSince(start));
                    return false;
                }
                return true;
            });
            clock.advance(2_000);
            lastSeen.touch(); // a frame arrived
            clock.advance(2_500);
            assertThat(lostAt.get()).as("2.5 s of silence is not yet more than the timeout").isEqualTo(-1);
            clock.advance(500);
            assertThat(lostAt.get()).isEqualTo(5_000);
            assertThat(pulse.size()).isZero();
        }
    }
}
