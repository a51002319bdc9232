package beam.cli;

import java.nio.file.Path;

/** Where sessions live: {@code --temp-dir}, else {@code RAY_TMPDIR}, else /tmp/ray (Ray's default). */
final class Paths {
    private Paths() {
    }

    static final Path DEFAULT = Path.of("/tmp/ray");

    static Path tempDir(String flag) {
        if (flag != null && !flag.isBlank()) return Path.of(flag).toAbsolutePath();
        String env = System.getenv("RAY_TMPDIR");
        if (env != null && !env.isBlank()) return Path.of(env).toAbsolutePath();
        return DEFAULT;
    }

    /** Whether the user named the folder (the flag or RAY_TMPDIR), rather than leaving the default. */
    static boolean tempDirChosen(String flag) {
        String env = System.getenv("RAY_TMPDIR");
        return (flag != null && !flag.isBlank()) || (env != null && !env.isBlank());
    }
}
