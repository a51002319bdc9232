package beam.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import beam.codec.FrameCodec;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * tests/golden/discovery_cases.json against the Java CLI's rule ({@link Paths}, {@link
 * TrustedPaths}); the bash launcher and the Python client run the same table
 * (tests/unit/test_discovery_golden.py).
 */
class DiscoveryGoldenTest {
    private static final int OTHER_UID = 65534;

    @TempDir
    Path tmp;

    @TestFactory
    Stream<DynamicTest> everyCase() throws Exception {
        JsonNode cases = FrameCodec.json().readTree(Files.readAllBytes(Path.of("..", "tests", "golden", "discovery_cases.json")))
                .path("cases");
        int uid = TrustedPaths.myUid();
        return StreamSupport.stream(cases.spliterator(), false).map(raw -> DynamicTest.dynamicTest(raw.path("name").asText(), () -> {
            Path base = Files.createTempDirectory(tmp, "case");
            JsonNode c = FrameCodec.json().readTree(raw.toString().replace("{base}", base.toString())
                    .replace("{uid}", String.valueOf(uid)));
            for (JsonNode f : c.path("files")) {
                boolean other = f.path("owner").asText().equals("other");
                assumeTrue(!other || uid == 0, "files of another user need root to make");
                Path p = Files.createDirectories(Path.of(f.path("path").asText()));
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(rwx(Integer.parseInt(f.path("mode").asText(), 8))));
                if (other) Files.setAttribute(p, "unix:uid", OTHER_UID);
            }
            Map<String, String> env = new HashMap<>();
            c.path("env").fields().forEachRemaining(e -> env.put(e.getKey(), e.getValue().asText()));
            String flag = c.has("flag") ? c.path("flag").asText() : null;
            Path cwd = Path.of(c.path("cwd").asText(base.toString()));
            Path chosen = Paths.tempDir(flag, env, cwd, uid);
            assertThat(chosen.toString()).isEqualTo(c.path("expect").asText());
            String problem = TrustedPaths.problem(chosen, "temp dir");
            assertThat(problem == null).as("trusted (problem: %s)", problem).isEqualTo(c.path("trusted").asBoolean());
        }));
    }

    private static String rwx(int mode) {
        String bits = "rwxrwxrwx";
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < 9; i++) out.append((mode & (1 << (8 - i))) != 0 ? bits.charAt(i) : '-');
        return out.toString();
    }
}
