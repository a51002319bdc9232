package beam.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The one stop path of both daemons: its steps in order, once, whoever asks and however often. */
@Timeout(30)
class StopPathTest {
    @TempDir
    Path temp;

    /** Steps that record themselves; {@code stopActors} waits for {@code release}. */
    private static final class Recorder implements StopPath.Steps {
        final List<String> done = new CopyOnWriteArrayList<>();
        final CountDownLatch inActors = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public void stopAccepting() {
            done.add("accepting");
        }

        @Override
        public void stopActors() {
            done.add("actors");
            inActors.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void closeConnections() {
            done.add("connections");
        }

        @Override
        public void closeLast() {
            done.add("last");
        }
    }

    @Test
    void runsEveryStepOnceInOrderAndLaterCallersWaitForTheEnd() throws Exception {
        SessionDir session = SessionDir.create(temp);
        session.writeNodeJson("ab".repeat(28), "127.0.0.1", "127.0.0.1:6379", ProcessHandle.current().pid());
        assertThat(Files.exists(session.nodeJson())).isTrue();
        Recorder steps = new Recorder();
        StopPath stop = new StopPath(session, steps);
        assertThat(stop.stopping()).isFalse();
        stop.request();
        assertThat(steps.inActors.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(stop.stopping()).isTrue();
        CountDownLatch secondReturned = new CountDownLatch(1);
        Thread.ofPlatform().start(() -> {
            stop.run(); // a shutdown hook while `ray stop` is stopping it
            secondReturned.countDown();
        });
        assertThat(secondReturned.await(200, TimeUnit.MILLISECONDS)).as("waits for the stop in progress").isFalse();
        steps.release.countDown();
        assertThat(secondReturned.await(10, TimeUnit.SECONDS)).isTrue();
        stop.await();
        stop.run();
        stop.request();
        assertThat(steps.done).containsExactly("accepting", "actors", "connections", "last");
        assertThat(Files.exists(session.nodeJson())).as("node.json removed").isFalse();
    }
}
