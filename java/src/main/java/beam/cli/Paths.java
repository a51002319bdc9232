package beam.cli;

import java.nio.file.Path;

/** Where sessions live: {@code --temp-dir}, else {@code RAY_TMPDIR}, else /tmp/ray (Ray's default). */
final class Paths {
    private Paths() {
    }

    static Path tempDir(String flag) {
        if (flag != null && !flag.isBlank()) return Path.of(flag).toAbsolutePath();
        String env = System.getenv("RAY_TMPDIR");
        if (env != null && !env.isBlank()) return Path.of(env).toAbsolutePath();
        return Path.of("/tmp/ray");
    }
}
