package beam.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import beam.codec.Frame;
import beam.util.ErrorKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The one table from an error's kind to its wire name, and the frames that carry it. */
class ErrorKindTest {
    @Test
    void eachKindKeepsTheWireNameThePythonSideMaps() throws Exception {
        Map<ErrorKind, String> names = new LinkedHashMap<>();
        for (ErrorKind k : ErrorKind.values()) names.put(k, k.rayName());
        assertThat(names).containsExactly(
                Map.entry(ErrorKind.INVALID_REQUEST, "ValueError"),
                Map.entry(ErrorKind.CONNECTION_REFUSED, "ConnectionError"),
                Map.entry(ErrorKind.INTERNAL, "RuntimeError"),
                Map.entry(ErrorKind.FRAME_REFUSED, "RaySystemError"),
                Map.entry(ErrorKind.ACTOR_DIED, "ActorDiedError"),
                Map.entry(ErrorKind.ACTOR_UNSCHEDULABLE, "ActorUnschedulableError"));
        // python/ray/_beam/wire/errors.py's ERRORS holds exactly these names, no more
        String python = Files.readString(Path.of("..", "python", "ray", "_beam", "wire", "errors.py"));
        Matcher table = Pattern.compile("ERRORS: Dict\\[str, type\\] = \\{(.*?)\\n\\}", Pattern.DOTALL).matcher(python);
        assertThat(table.find()).isTrue();
        Matcher key = Pattern.compile("\"(\\w+)\":").matcher(table.group(1));
        var keys = new java.util.TreeSet<String>();
        while (key.find()) keys.add(key.group(1));
        assertThat(keys).containsExactlyInAnyOrderElementsOf(names.values());
    }

    @Test
    void namesAreDistinct() {
        assertThat(Arrays.stream(ErrorKind.values()).map(ErrorKind::rayName).distinct().count())
                .isEqualTo(ErrorKind.values().length);
    }

    @Test
    void anErrorReplyCarriesTheKindsWireName() {
        Frame f = Frames.error(7, ErrorKind.CONNECTION_REFUSED, "no");
        assertThat(f.header().toString())
                .isEqualTo("{\"op\":\"reply\",\"rid\":7,\"ok\":false,\"kind\":\"ConnectionError\",\"error\":\"no\"}");
    }

    @Test
    void aFailedResultsStatusFollowsItsKind() {
        String oid = "ab".repeat(28);
        assertThat(Frames.failedResult(oid, ErrorKind.ACTOR_DIED, "gone").header().toString()).isEqualTo(
                "{\"op\":\"result\",\"oid\":\"" + oid + "\",\"status\":\"actor_died\",\"kind\":\"ActorDiedError\",\"message\":\"gone\"}");
        assertThat(Frames.failedResult(oid, ErrorKind.INVALID_REQUEST, "bad").header().toString()).isEqualTo(
                "{\"op\":\"result\",\"oid\":\"" + oid + "\",\"status\":\"error\",\"kind\":\"ValueError\",\"message\":\"bad\"}");
    }
}
