package beam.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResourcesTest {
    private static Resources of(String json) throws Exception {
        return Resources.fromJson(new ObjectMapper().readTree(json), "test");
    }

    @Test
    void fractionalAmountsDoNotDriftOverTenThousandCycles() throws Exception {
        Resources node = of("{\"GPU\": 1, \"node:10.0.0.1\": 1}");
        Resources small = of("{\"node:10.0.0.1\": 0.001}");
        Resources quarter = of("{\"GPU\": 0.25}");
        for (int i = 0; i < 10_000; i++) {
            node.subtract(small);
            node.subtract(quarter);
            node.subtract(quarter);
            node.add(quarter);
            node.add(small);
            node.add(quarter);
        }
        assertThat(node.get("GPU")).isEqualTo(Resources.UNIT);
        assertThat(node.get("node:10.0.0.1")).isEqualTo(Resources.UNIT);
        assertThat(node.toJson().get("GPU").asDouble()).isEqualTo(1.0);
    }

    @Test
    void thousandSmallSharesFitExactly() throws Exception {
        Resources node = of("{\"node:x\": 1}");
        Resources share = of("{\"node:x\": 0.001}");
        for (int i = 0; i < 1000; i++) {
            assertThat(node.fits(share)).isTrue();
            node.subtract(share);
        }
        assertThat(node.fits(share)).isFalse();
    }

    @Test
    void rejectsBadAmounts() {
        assertThatThrownBy(() -> of("{\"GPU\": -1}")).hasMessageContaining(">= 0");
        assertThatThrownBy(() -> of("{\"GPU\": \"1\"}")).hasMessageContaining("must be a number");
        assertThatThrownBy(() -> of("{\"GPU\": 0.00001}")).hasMessageContaining("resolution");
        assertThatThrownBy(() -> of("[1]")).hasMessageContaining("dict");
    }

    @Test
    void shortfallNamesWhatIsMissing() throws Exception {
        assertThat(of("{\"GPU\": 2}").shortfall(of("{\"GPU\": 4, \"CPU\": 1}"))).isEqualTo("1 CPU (has 0), 4 GPU (has 2)");
    }

    @Test
    void halfGpusShareOneDevice() {
        DeviceSlots slots = DeviceSlots.whole(List.of("0", "1"));
        Map<String, Long> a = slots.allocate(Resources.UNIT / 2);
        Map<String, Long> b = slots.allocate(Resources.UNIT / 2);
        assertThat(a.keySet()).isEqualTo(b.keySet());
        Map<String, Long> whole = slots.allocate(Resources.UNIT);
        assertThat(whole.keySet()).doesNotContainAnyElementsOf(a.keySet());
        assertThat(slots.allocate(Resources.UNIT / 4)).isNull();
        slots.release(a);
        assertThat(slots.allocate(Resources.UNIT / 4)).containsOnlyKeys(a.keySet().iterator().next());
    }

    @Test
    void wholeGpuRequestsNeedWholeFreeDevices() {
        DeviceSlots slots = DeviceSlots.whole(List.of("0", "1"));
        slots.allocate(Resources.UNIT / 2);
        assertThat(slots.allocate(2 * Resources.UNIT)).isNull();
        assertThat(slots.allocate(Resources.UNIT)).containsOnlyKeys("1");
        assertThat(slots.allocate(15_000)).isNull();
    }
}
