package beam.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What each variable means, read from a map instead of the process environment. */
class EnvironmentTest {
    @Test
    void theCliTimeoutIsSixtySecondsUnlessAPositiveWholeNumberIsGiven() {
        assertThat(Environment.of(Map.of()).cliTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(Environment.of(Map.of(Environment.CLI_TIMEOUT, " 2 ")).cliTimeout()).isEqualTo(Duration.ofSeconds(2));
        for (String bad : new String[] {"0", "-3", "soon", " "}) {
            assertThat(Environment.of(Map.of(Environment.CLI_TIMEOUT, bad)).cliTimeout()).as(bad)
                    .isEqualTo(Environment.DEFAULT_CLI_TIMEOUT);
        }
    }

    @Test
    void theDaemonsPythonAndDeviceRootHaveTheirDefaults() {
        assertThat(Environment.of(Map.of()).python()).isEqualTo("python3");
        assertThat(Environment.of(Map.of(Environment.PYTHON, "/venv/bin/python")).python()).isEqualTo("/venv/bin/python");
        assertThat(Environment.of(Map.of()).deviceRoot()).isEqualTo(Path.of("/"));
        assertThat(Environment.of(Map.of(Environment.DEVICE_ROOT, "/fake")).deviceRoot()).isEqualTo(Path.of("/fake"));
    }
}
