package beam.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import beam.codec.Frame;
import beam.util.DeviceTelemetry;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The telemetry record as a node sends it and the head reads it: its JSON, its bounds, its refusals. */
class TelemetryCodecTest {
    private static final DeviceTelemetry.Device H200 =
            new DeviceTelemetry.Device("0", "GPU-aa", "NVIDIA H200", 35.0, 1024, 143771);

    @Test
    void roundTripsThroughItsJsonWithAMissingUtilizationKeptAsNull() {
        DeviceTelemetry t = DeviceTelemetry.sampled("nvidia-smi", "GPU", 1234,
                List.of(H200, new DeviceTelemetry.Device("1", null, null, null, 0, 80)))
                .failed("nvidia-smi did not answer in 5 s", true);
        assertThat(FactsCodec.telemetry(FactsCodec.telemetry(t))).isEqualTo(t);
        assertThat(FactsCodec.telemetry(t).path("devices").get(1).path("utilization_gpu").isNull()).isTrue();
    }

    @Test
    void tooManyDevicesOrAShapeThatIsNotOneIsRefusedBeforeAnyIsKept() {
        ObjectNode json = FactsCodec.telemetry(DeviceTelemetry.sampled("nvidia-smi", "GPU", 1, List.of(H200)));
        ArrayNode devices = json.putArray("devices");
        for (int i = 0; i <= DeviceTelemetry.MAX_DEVICES; i++) devices.add(h200Json());
        assertThatThrownBy(() -> FactsCodec.telemetry(json)).hasMessageContaining("lists 65 devices; at most 64");
        json.put("devices", "none");
        assertThatThrownBy(() -> FactsCodec.telemetry(json)).hasMessage("telemetry.devices must be a list");
        assertThatThrownBy(() -> FactsCodec.telemetry(JsonNodeFactory.instance.arrayNode()))
                .hasMessage("telemetry must be an object");
    }

    @Test
    void aSampleTheHeadCannotReadArrivesAsTheNodesProblemNotALostLink() throws Exception {
        ObjectNode frame = JsonNodeFactory.instance.objectNode().put("op", "node_facts");
        frame.putObject("telemetry").put("devices", "none");
        LinkMessage read = LinkCodec.toHead(new Frame(frame));
        assertThat(read).isInstanceOf(LinkMessage.Telemetry.class);
        assertThat(((LinkMessage.Telemetry) read).sample().problem())
                .isEqualTo("the node sent a sample the head cannot read: telemetry.devices must be a list");
    }

    @Test
    void longTextIsCutToItsBound() {
        DeviceTelemetry.Device d = new DeviceTelemetry.Device("0", "u", "x".repeat(1000), 1.0, 1, 2);
        assertThat(d.name()).hasSize(DeviceTelemetry.MAX_TEXT);
    }

    private static ObjectNode h200Json() {
        return (ObjectNode) FactsCodec.telemetry(DeviceTelemetry.sampled("t", "GPU", 1, List.of(H200))).path("devices").get(0);
    }
}
