package beam.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import beam.codec.Frame;
import beam.protocol.Frames;
import beam.util.Await;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** One client's frames keep their order while a request that waits runs off the reader's thread. */
class OffLoopTest {
    /** Records what the drainer ran; a doctor frame blocks it until released. */
    private static final class Recorder implements OffLoop.Owner {
        final List<String> ran = Collections.synchronizedList(new ArrayList<>());
        final List<String> events = Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch release = new CountDownLatch(1);
        final CountDownLatch ended = new CountDownLatch(1);
        volatile Thread drainer;

        @Override
        public void frame(Frame frame) {
            drainer = Thread.currentThread();
            if (frame.op().equals("doctor")) {
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            ran.add(frame.op());
        }

        @Override
        public void end(Exception why) {
            events.add("end");
            ended.countDown();
        }

        @Override
        public void backlogFull() {
            events.add("full");
        }

        @Override
        public void drained() {
            events.add("drained");
        }
    }

    private static Frame op(String name) {
        return new Frame(Frames.header(name));
    }

    @Test
    void aQuickFrameRunsOnTheReadersThreadUntilOneThatWaitsComes() {
        Recorder r = new Recorder();
        OffLoop off = new OffLoop(r, 4, "test");
        assertThat(off.offer(op("call"))).isFalse(); // the reader runs it itself
        assertThat(off.offerEnd(null)).isFalse();
        assertThat(r.ran).isEmpty();
    }

    @Test
    void framesBehindASlowRequestKeepTheirOrderAndTheBoundIsSaidOnceThenUndone() throws Exception {
        Recorder r = new Recorder();
        OffLoop off = new OffLoop(r, 3, "test");
        assertThat(off.offer(op("doctor"))).isTrue();
        for (int i = 0; i < 5; i++) assertThat(off.offer(op("call" + i))).isTrue(); // queued behind it, even quick ones
        assertThat(off.offerEnd(null)).isTrue();
        assertThat(r.events).containsExactly("full"); // once, however many more come
        r.release.countDown();
        assertThat(r.ended.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(r.ran).containsExactly("doctor", "call0", "call1", "call2", "call3", "call4");
        assertThat(r.drainer).isNotEqualTo(Thread.currentThread());
        Await.until(() -> r.events.contains("drained"), "the off-loop queue reported drained");
        assertThat(r.events).containsExactly("full", "end", "drained");
        assertThat(off.offer(op("call"))).isFalse(); // drained: back on the reader's thread
    }
}
