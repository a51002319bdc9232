package beam.http;

import static org.assertj.core.api.Assertions.assertThat;

import beam.metrics.NodeMetrics;
import beam.metrics.UserMetrics;
import beam.util.ManualScheduler;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The HTTP face binds a moment after the daemon serves, timed by the scheduler: no sleeping. */
@Timeout(30)
class NodeHttpStartTest {
    private final ManualScheduler clock = new ManualScheduler();

    private NodeHttp face() {
        return new NodeHttp(HttpConfig.ephemeral(), null, () -> null, null,
                new NodeMetrics(new UserMetrics(), () -> null, null), clock);
    }

    @Test
    void theFaceBindsWhenTheStartDelayEndsAndNotBefore() throws Exception {
        try (NodeHttp http = face()) {
            CompletableFuture<Map<String, Integer>> bound = new CompletableFuture<>();
            http.startInBackground((ports, error) -> bound.complete(ports));
            clock.advance(NodeHttp.START_DELAY_MILLIS - 1);
            assertThat(bound).as("nothing binds within the delay").isNotDone();
            assertThat(clock.pending()).isEqualTo(1);
            clock.advance(1);
            assertThat(bound.get(20, TimeUnit.SECONDS)).containsOnlyKeys(NodeHttp.AGENT, NodeHttp.METRICS)
                    .allSatisfy((face, port) -> assertThat(port).isPositive());
        }
    }

    @Test
    void aFaceClosedBeforeTheDelayEndsNeverBinds() {
        NodeHttp http = face();
        http.startInBackground((ports, error) -> {
            throw new AssertionError("bound after close: " + ports);
        });
        http.close();
        assertThat(clock.pending()).as("the bind is cancelled with the face").isZero();
        clock.advance(NodeHttp.START_DELAY_MILLIS * 10);
    }
}
