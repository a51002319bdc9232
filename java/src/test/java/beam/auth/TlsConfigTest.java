package beam.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import beam.config.Environment;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Where the TLS files come from: flags first, then Ray's variables. */
class TlsConfigTest {
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
}
