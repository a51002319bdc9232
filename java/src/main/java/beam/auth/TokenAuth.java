package beam.auth;

import beam.util.Ids;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Token authentication for TCP links, on by default. The token never crosses the wire:
 * the server sends a fresh random nonce, the client answers HMAC-SHA256(token, nonce), and
 * the server compares in constant time. A captured answer is useless against the next
 * nonce. {@code token == null} means auth is disabled ({@code RAY_AUTH_MODE=disabled}).
 */
public final class TokenAuth {
    public static final String TOKEN_FILE = "auth_token";
    private final byte[] token;

    public TokenAuth(String token) {
        this.token = token == null ? null : token.trim().getBytes(StandardCharsets.UTF_8);
    }

    public boolean enabled() {
        return token != null;
    }

    public static String newToken() {
        return Ids.randomHex(32);
    }

    public static String newNonce() {
        return Ids.randomHex(32);
    }

    /** The answer to {@code nonce}: hex HMAC-SHA256 keyed by the token. */
    public String answer(String nonce) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(token, "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(nonce.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    /** Constant-time check of a client's answer. */
    public boolean verify(String nonce, String answer) {
        if (!enabled()) return true;
        if (answer == null) return false;
        return MessageDigest.isEqual(answer(nonce).getBytes(StandardCharsets.US_ASCII),
                answer.getBytes(StandardCharsets.US_ASCII));
    }

    /** Writes the token to {@code file}, readable by its owner only (0600). */
    public static void store(Path file, String token) throws IOException {
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, token + "\n", StandardCharsets.UTF_8, StandardOpenOption.TRUNCATE_EXISTING);
    }
}
