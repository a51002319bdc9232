package beam.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import beam.config.Environment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Ray 2.59+'s order of token sources, each found token naming its source, and RAY_AUTH_MODE. */
class TokenSourceTest {
    @TempDir
    Path home;

    private Path homeFile(String token) throws Exception {
        Files.createDirectories(home.resolve(".ray"));
        return Files.writeString(home.resolve(".ray/auth_token"), token);
    }

    @Test
    void theVariableThenTheFlagsFileThenTheVariablesFileThenTheHomeFile() throws Exception {
        Path flagFile = Files.writeString(home.resolve("flag"), "from-flag\n");
        Path envFile = Files.writeString(home.resolve("env"), "from-env-file\n");
        homeFile("from-home\n");
        Map<String, String> vars = Map.of(Environment.HOME, home.toString(), Environment.AUTH_TOKEN, " direct ",
                Environment.AUTH_TOKEN_PATH, envFile.toString());
        assertThat(TokenSource.find(Environment.of(vars), flagFile.toString()))
                .isEqualTo(new TokenSource.Found("direct", "RAY_AUTH_TOKEN"));
        Environment noVariable = Environment.of(Map.of(Environment.HOME, home.toString(), Environment.AUTH_TOKEN, " ",
                Environment.AUTH_TOKEN_PATH, envFile.toString()));
        assertThat(TokenSource.find(noVariable, flagFile.toString()).token()).isEqualTo("from-flag");
        assertThat(TokenSource.find(noVariable, flagFile.toString()).source()).isEqualTo("--auth-token-path " + flagFile);
        assertThat(TokenSource.find(noVariable, null))
                .isEqualTo(new TokenSource.Found("from-env-file", "RAY_AUTH_TOKEN_PATH=" + envFile));
        assertThat(TokenSource.find(Environment.of(Map.of(Environment.HOME, home.toString())), null))
                .isEqualTo(new TokenSource.Found("from-home", "~/.ray/auth_token (" + home.resolve(".ray/auth_token") + ")"));
        assertThat(TokenSource.find(Environment.of(Map.of()), null)).isNull();
    }

    @Test
    void aNamedFileThatIsMissingOrEmptyIsAnErrorNamingIt() throws Exception {
        Path empty = Files.writeString(home.resolve("empty"), "\n");
        assertThatThrownBy(() -> TokenSource.find(Environment.of(Map.of()), home.resolve("nope").toString()))
                .hasMessageContaining("--auth-token-path " + home.resolve("nope")).hasMessageContaining("does not exist");
        assertThatThrownBy(() -> TokenSource.find(Environment.of(Map.of(Environment.AUTH_TOKEN_PATH, empty.toString())), null))
                .hasMessageContaining("RAY_AUTH_TOKEN_PATH=" + empty).hasMessageContaining("is empty");
    }

    @Test
    void authModeIsTokenOrDisabledAndNothingElse() {
        assertThat(TokenSource.disabled(Environment.of(Map.of()))).isFalse();
        assertThat(TokenSource.disabled(Environment.of(Map.of(Environment.AUTH_MODE, "token")))).isFalse();
        assertThat(TokenSource.disabled(Environment.of(Map.of(Environment.AUTH_MODE, "DISABLED")))).isTrue();
        assertThatThrownBy(() -> TokenSource.disabled(Environment.of(Map.of(Environment.AUTH_MODE, "off"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'token' or 'disabled', got 'off'");
    }

    @Test
    void aGeneratedTokenIsReadableByItsOwnerOnly() throws Exception {
        Path file = home.resolve(".ray/auth_token");
        String token = TokenSource.generate(file);
        assertThat(token).matches("[0-9a-f]{64}");
        assertThat(Files.readString(file).trim()).isEqualTo(token);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent()))).isEqualTo("rwx------");
    }
}
