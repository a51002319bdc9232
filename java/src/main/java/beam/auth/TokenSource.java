package beam.auth;

import beam.config.Environment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Where a node's cluster token comes from, in Ray 2.59+'s order: {@code RAY_AUTH_TOKEN}, then
 * the file {@code --auth-token-path} or {@code RAY_AUTH_TOKEN_PATH} names, then the user's
 * {@code ~/.ray/auth_token} (which {@code ray get-auth-token --generate} writes and users copy to
 * every node). Each token found says its source, so a refused join can name it.
 *
 * <p>{@code RAY_AUTH_MODE}: {@code disabled} turns authentication off, {@code token} or unset keeps
 * it on. Unlike Ray, which leaves a head without any token unauthenticated, a beam head then makes
 * a token of its own for the session (secure by default; its start banner says how to join).
 */
public final class TokenSource {
    /** A token and where it came from, e.g. {@code ~/.ray/auth_token (/home/u/.ray/auth_token)}. */
    public record Found(String token, String source) {
    }

    private TokenSource() {
    }

    /** What {@code RAY_AUTH_MODE} says: authentication off. A value Ray does not know is refused. */
    public static boolean disabled(Environment env) {
        String mode = env.given(Environment.AUTH_MODE);
        if (mode == null || mode.equalsIgnoreCase("token")) return false;
        if (mode.equalsIgnoreCase("disabled")) return true;
        throw new IllegalArgumentException(Environment.AUTH_MODE + " must be 'token' or 'disabled', got '" + mode + "'");
    }

    /** Ray 2.59+'s token file: {@code $HOME/.ray/auth_token}; null without a home. */
    public static Path defaultFile(Environment env) {
        String home = env.given(Environment.HOME);
        return home == null ? null : Path.of(home, ".ray", "auth_token");
    }

    /** The first token of Ray's order, or null if none is set. A named file that cannot be read is an error. */
    public static Found find(Environment env, String pathFlag) throws IOException {
        String direct = env.given(Environment.AUTH_TOKEN);
        if (direct != null) return new Found(direct.trim(), Environment.AUTH_TOKEN);
        if (pathFlag != null) return read(Path.of(pathFlag), "--auth-token-path " + pathFlag);
        String path = env.given(Environment.AUTH_TOKEN_PATH);
        if (path != null) return read(Path.of(path), Environment.AUTH_TOKEN_PATH + "=" + path);
        Path home = defaultFile(env);
        if (home != null && Files.exists(home)) return read(home, "~/.ray/auth_token (" + home + ")");
        return null;
    }

    private static Found read(Path file, String source) throws IOException {
        String token;
        try {
            token = Files.readString(file, StandardCharsets.UTF_8).trim();
        } catch (NoSuchFileException e) {
            throw new IOException("the token file of " + source + " does not exist");
        }
        if (token.isEmpty()) throw new IOException("the token file of " + source + " is empty");
        return new Found(token, source);
    }

    /** Writes a new token to {@code file} (its folder made 0700, the file 0600) and returns it. */
    public static String generate(Path file) throws IOException {
        Path dir = file.getParent();
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        String token = TokenAuth.newToken();
        TokenAuth.store(file, token);
        return token;
    }
}
