package beam.cli;

import static org.assertj.core.api.Assertions.assertThat;

import beam.codec.FrameCodec;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * tests/golden/ready_report_cases.json against {@link DetachedStart#relay}, a shell standing in
 * for the daemon; the bash script and the Python launcher run the same table
 * (tests/unit/test_ready_report_golden.py).
 */
class ReadyReportGoldenTest {
    @TempDir
    Path tmp;

    @TestFactory
    Stream<DynamicTest> everyCase() throws Exception {
        JsonNode cases = FrameCodec.json().readTree(Files.readAllBytes(Path.of("..", "tests", "golden", "ready_report_cases.json")))
                .path("cases");
        return StreamSupport.stream(cases.spliterator(), false).map(c -> DynamicTest.dynamicTest(c.path("name").asText(), () -> {
            Path log = tmp.resolve(DetachedStart.STDERR_LOG);
            List<String> cmd = new ArrayList<>(List.of("sh", "-c", "for l in \"$@\"; do printf '%s\\n' \"$l\"; done; exit "
                    + c.path("exit").asInt(), "daemon"));
            c.path("lines").forEach(l -> cmd.add(l.asText()));
            Process daemon = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
            int status = DetachedStart.relay(daemon, log, new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            assertThat(status).isEqualTo(c.path("status").asInt());
            assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo(c.path("stdout").asText());
            assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo(c.path("stderr").asText().replace("{log}", log.toString()));
            daemon.destroy();
        }));
    }
}
