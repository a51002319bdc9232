package beam.link;

import static org.assertj.core.api.Assertions.assertThat;

import beam.util.Await;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The shared heartbeat clock: every link beats each period, on one thread, until it is over. */
@Timeout(30)
class PulseTest {
    @Test
    void everyLinkBeatsEachPeriodUntilItIsOverAndAFailingOneDoesNotStopTheOthers() throws Exception {
        try (Pulse pulse = new Pulse(new Heartbeat(20, 100), "test-heartbeats")) {
            assertThat(pulse.ticking()).isFalse(); // no link, no clock
            AtomicInteger steady = new AtomicInteger(), ending = new AtomicInteger(), failing = new AtomicInteger();
            java.util.Set<String> threads = java.util.concurrent.ConcurrentHashMap.newKeySet();
            CountDownLatch tenBeats = new CountDownLatch(10);
            pulse.add(() -> {
                threads.add(Thread.currentThread().getName());
                steady.incrementAndGet();
                tenBeats.countDown();
                return true;
            });
            pulse.add(() -> ending.incrementAndGet() < 3); // over after its third beat
            pulse.add(() -> {
                failing.incrementAndGet();
                throw new IllegalStateException("a bug in one link");
            });
            assertThat(tenBeats.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(ending.get()).isEqualTo(3);
            assertThat(failing.get()).isEqualTo(1);
            assertThat(pulse.size()).isEqualTo(1);
            assertThat(threads).containsExactly("test-heartbeats");
        }
    }

    @Test
    void theClockStopsWhenTheLastLinkIsOverAndStartsAgainForTheNext() throws Exception {
        try (Pulse pulse = new Pulse(new Heartbeat(10, 100), "test-heartbeats")) {
            CountDownLatch over = new CountDownLatch(1);
            pulse.add(() -> {
                over.countDown();
                return false;
            });
            assertThat(pulse.ticking()).isTrue();
            assertThat(over.await(10, TimeUnit.SECONDS)).isTrue();
            Await.until(() -> !pulse.ticking(), "the pulse stopped after its last link was over");
            assertThat(pulse.ticking()).isFalse();
            CountDownLatch beats = new CountDownLatch(3);
            pulse.add(() -> {
                beats.countDown();
                return true;
            });
            assertThat(beats.await(10, TimeUnit.SECONDS)).isTrue();
        }
    }
}
