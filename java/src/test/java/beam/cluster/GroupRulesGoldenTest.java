package beam.cluster;

import beam.util.Scheduler;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowable;

import beam.util.Ids;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * tests/golden/pg_checks.json against the daemon: each request goes the way a pg_create does
 * (its bundles parsed as resources, then the placement group directory); the Python shim runs
 * the same table (tests/unit/test_pg_checks_golden.py).
 */
class GroupRulesGoldenTest {
    private static final JsonNode GOLDEN = read();

    private static JsonNode read() {
        try {
            return new ObjectMapper().readTree(Files.readAllBytes(Path.of("..", "tests", "golden", "pg_checks.json")));
        } catch (Exception e) {
            throw new IllegalStateException("cannot read tests/golden/pg_checks.json", e);
        }
    }

    @Test
    void theStrategiesAreTheGoldenOnes() {
        List<String> golden = new ArrayList<>();
        GOLDEN.path("strategies").forEach(s -> golden.add(s.asText()));
        assertThat(GroupRules.STRATEGIES).containsExactlyElementsOf(golden);
    }

    @TestFactory
    Stream<DynamicTest> everyCase() {
        return StreamSupport.stream(GOLDEN.path("cases").spliterator(), false)
                .map(c -> DynamicTest.dynamicTest(c.path("name").asText(), () -> run(c)));
    }

    private static void run(JsonNode c) {
        Cluster cluster = new Cluster("ns", Scheduler.system());
        cluster.addNode(FakeNodes.node("10.0.0.1", 4, 8, new FakeNodes.Link(), true));
        FakeNodes.RecordingClient driver = new FakeNodes.RecordingClient();
        Runnable create = () -> {
            List<Resources> bundles = new ArrayList<>();
            int i = 0;
            for (JsonNode b : c.path("bundles")) {
                String what = "bundle " + i++;
                java.util.Map<String, Double> amounts = new java.util.LinkedHashMap<>();
                b.fields().forEachRemaining(e -> amounts.put(e.getKey(), e.getValue().asDouble()));
                bundles.add(Resources.of(amounts, what)); // the wire's shape check is protocol/ResourceJsonTest's
            }
            try {
                cluster.groups().create(driver, Ids.randomHex(18), "", c.path("strategy").asText(), bundles, false);
            } catch (RequestException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
        };
        if (c.path("error").isNull()) {
            assertThatCode(create::run).doesNotThrowAnyException();
            return;
        }
        Throwable thrown = catchThrowable(create::run);
        assertThat(thrown).as(c.path("name").asText()).isInstanceOf(IllegalArgumentException.class);
        assertThat(thrown.getMessage()).containsPattern(c.path("error").asText());
    }
}
