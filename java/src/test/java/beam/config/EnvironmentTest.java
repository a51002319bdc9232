package beam.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import beam.auth.TlsConfig;
import beam.auth.TokenAuth;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
    void tlsFlagsWinOverRaysVariablesAndAPartialSetIsRefusedByName() {
        Environment env = Environment.of(Map.of(Environment.TLS_CERT, "/env/cert", Environment.TLS_KEY, "/env/key",
                Environment.TLS_CA, "/env/ca"));
        assertThat(TlsConfig.resolve("/flag/cert", null, null, env))
                .isEqualTo(new TlsConfig(Path.of("/flag/cert"), Path.of("/env/key"), Path.of("/env/ca")));
        assertThat(TlsConfig.resolve(null, null, null, Environment.of(Map.of()))).isNull();
        assertThatThrownBy(() -> TlsConfig.resolve(null, null, null, Environment.of(Map.of(Environment.TLS_CA, "/ca"))))
                .hasMessageContaining("--tls-cert").hasMessageContaining(Environment.TLS_CERT);
    }

    @Test
    void theDaemonsPythonAndDeviceRootHaveTheirDefaults() {
        assertThat(Environment.of(Map.of()).python()).isEqualTo("python3");
        assertThat(Environment.of(Map.of(Environment.PYTHON, "/venv/bin/python")).python()).isEqualTo("/venv/bin/python");
        assertThat(Environment.of(Map.of()).deviceRoot()).isEqualTo(Path.of("/"));
        assertThat(Environment.of(Map.of(Environment.DEVICE_ROOT, "/fake")).deviceRoot()).isEqualTo(Path.of("/fake"));
    }
}
