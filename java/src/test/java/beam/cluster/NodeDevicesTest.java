package beam.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import beam.util.HostFacts;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeDevicesTest {
    private static final Map<String, NodeAccelerator> NODE = Map.of(
            "GPU", new NodeAccelerator(AcceleratorKind.NVIDIA_GPU, List.of("0", "1"), null, NodeAccelerator.DECLARED),
            "NPU", new NodeAccelerator(AcceleratorKind.NPU, List.of("4", "6"), null, NodeAccelerator.VISIBLE));

    /** A request: resource names, each followed by its amount. */
    private static Resources req(Object... nameThenAmount) {
        Map<String, Double> amounts = new java.util.LinkedHashMap<>();
        for (int i = 0; i < nameThenAmount.length; i += 2) {
            amounts.put((String) nameThenAmount[i], ((Number) nameThenAmount[i + 1]).doubleValue());
        }
        return Resources.of(amounts, "test");
    }

    @Test
    void aRequestTakesIdsOfEveryAcceleratorItNamesAndHalvesShare() throws Exception {
        NodeDevices d = NodeDevices.whole(NODE);
        Map<String, Map<String, Long>> a = d.allocate(req("NPU", 0.5, "CPU", 1));
        Map<String, Map<String, Long>> b = d.allocate(req("NPU", 0.5));
        assertThat(NodeDevices.ids(a)).isEqualTo(NodeDevices.ids(b)).isEqualTo(Map.of("NPU", List.of("4")));
        Map<String, Map<String, Long>> c = d.allocate(req("NPU", 1, "GPU", 2));
        assertThat(NodeDevices.ids(c)).isEqualTo(Map.of("GPU", List.of("0", "1"), "NPU", List.of("6")));
    }

    @Test
    void aRequestThatDoesNotFitOneResourceTakesNothingOfTheOthers() throws Exception {
        NodeDevices d = NodeDevices.whole(NODE);
        assertThat(d.allocate(req("GPU", 1, "NPU", 3))).isNull();
        assertThat(NodeDevices.ids(d.allocate(req("GPU", 2, "NPU", 2))))
                .isEqualTo(Map.of("GPU", List.of("0", "1"), "NPU", List.of("4", "6")));
    }

    @Test
    void couldFitLooksAtWholeDevices() throws Exception {
        assertThat(NodeDevices.couldFit(NODE, req("NPU", 2))).isTrue();
        assertThat(NodeDevices.couldFit(NODE, req("NPU", 1.5))).isFalse();
        assertThat(NodeDevices.couldFit(NODE, req("NPU", 3))).isFalse();
    }

    @Test
    void theJoinFormRoundTripsAndRefusesKindsBeamDoesNotKnow() {
        assertThat(NodeAccelerator.of(NodeAccelerator.describeAll(NODE))).isEqualTo(NODE);
        assertThatThrownBy(() -> NodeAccelerator.of(Map.of("GPU", described("QUANTUM"))))
                .hasMessageContaining("unknown kind 'QUANTUM'");
        assertThatThrownBy(() -> NodeAccelerator.of(Map.of("GPU", described("NPU"))))
                .hasMessageContaining("kind NPU counts in NPU");
        assertThatThrownBy(() -> NodeAccelerator.of(null)).hasMessageContaining("must be an object");
    }

    private static HostFacts.Accelerator described(String kind) {
        return new HostFacts.Accelerator(kind, null, null, null, null, List.of("0"), null);
    }
}
