package beam.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import beam.codec.Frame;
import beam.codec.FrameCodec;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The JSON form of a resource map: its shape checked with the map's name, amounts written as JSON floats. */
class ResourceJsonTest {
    private static Map<String, Double> read(String json) throws Exception {
        return ResourceJson.read(FrameCodec.json().readTree(json), "resources");
    }

    @Test
    void readsNumbersInTheirOrderAndNothingForAbsentOrNull() throws Exception {
        assertThat(read("{\"node:x\": 1, \"CPU\": 0.5, \"GPU\": -2}").entrySet())
                .extracting(Map.Entry::getKey, Map.Entry::getValue)
                .containsExactly(tuple("node:x", 1.0),
                        tuple("CPU", 0.5), tuple("GPU", -2.0));
        assertThat(read("null")).isEmpty();
        assertThat(ResourceJson.read(null, "resources")).isEmpty();
    }

    @Test
    void aMapThatIsNoObjectOfNumbersIsRefusedNamingItAndTheResource() {
        assertThatThrownBy(() -> read("[1]")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("resources must be a dict of resource name to amount");
        assertThatThrownBy(() -> read("{\"GPU\": \"1\"}"))
                .hasMessage("resources: amount of 'GPU' must be a number, got \"1\"");
        assertThatThrownBy(() -> read("{\"GPU\": 1, \"TPU\": null}"))
                .hasMessage("resources: amount of 'TPU' must be a number, got null");
    }

    @Test
    void theTreeAndTheStreamedFormAreTheSameBytes() throws Exception {
        Map<String, Double> amounts = new LinkedHashMap<>();
        amounts.put("CPU", 8.0);
        amounts.put("GPU", 0.25);
        amounts.put("memory", 1.5e10);
        String tree = FrameCodec.json().writeValueAsString(ResourceJson.write(amounts));
        ByteArrayOutputStream streamed = new ByteArrayOutputStream();
        try (JsonGenerator g = FrameCodec.json().getFactory().createGenerator(streamed)) {
            ResourceJson.write(amounts, g);
        }
        assertThat(tree).isEqualTo("{\"CPU\":8.0,\"GPU\":0.25,\"memory\":1.5E10}");
        assertThat(streamed.toString(StandardCharsets.UTF_8)).isEqualTo(tree);
        JsonNode back = FrameCodec.json().readTree(tree);
        assertThat(ResourceJson.read(back, "resources")).isEqualTo(amounts);
    }

    @Test
    void aJoinWhoseResourcesDoNotReadCarriesWhyForTheHead() {
        var h = Frames.header("join").put("node_id", "ab".repeat(28)).put("node_ip", "10.0.0.2");
        h.putObject("resources").put("GPU", "four");
        LinkMessage.Join join = LinkCodec.join(new Frame(h));
        assertThat(join.resources()).isEmpty();
        assertThat(join.badResources()).isEqualTo("join resources: amount of 'GPU' must be a number, got \"four\"");
        h.putObject("resources").put("GPU", 4);
        assertThat(LinkCodec.join(new Frame(h)).badResources()).isNull();
        assertThat(LinkCodec.join(new Frame(h)).resources()).containsExactly(Map.entry("GPU", 4.0));
    }
}
