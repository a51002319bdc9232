package beam.cli;

import java.nio.file.Path;

/** Where sessions live: {@code --temp-dir}, else {@code RAY_TMPDIR}, else /tmp/ray (Ray's default). */
final class Paths {
    private Paths() {
    }

    static final Path DEFAULT = Path.of("/tmp/ray");

    static Path tempDir(String flag) {
        return chosenTempDir(flag).orElse(DEFAULT);
    }

    /** The folder the user named (the flag, else RAY_TMPDIR), if any. */
    static java.util.Optional<Path> chosenTempDir(String flag) {
        if (flag != null && !flag.isBlank()) return java.util.Optional.of(Path.of(flag).toAbsolutePath());
        String env = System.getenv("RAY_TMPDIR");
        if (env != null && !env.isBlank()) return java.util.Optional.of(Path.of(env).toAbsolutePath());
        return java.util.Optional.empty();
    }
}
