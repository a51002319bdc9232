package beam.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResourcesTest {
    private static Resources of(Map<String, Double> amounts) {
        return Resources.of(amounts, "test");
    }

    @Test
    void fractionalAmountsDoNotDriftOverTenThousandCycles() {
        Resources node = of(Map.of("GPU", 1.0, "node:10.0.0.1", 1.0));
        Resources small = of(Map.of("node:10.0.0.1", 0.001));
        Resources quarter = of(Map.of("GPU", 0.25));
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
        assertThat(node.amounts()).containsEntry("GPU", 1.0);
    }

    @Test
    void thousandSmallSharesFitExactly() {
        Resources node = of(Map.of("node:x", 1.0));
        Resources share = of(Map.of("node:x", 0.001));
        for (int i = 0; i < 1000; i++) {
            assertThat(node.fits(share)).isTrue();
            node.subtract(share);
        }
        assertThat(node.fits(share)).isFalse();
    }

    @Test
    void rejectsBadAmountsNamingTheMapAndTheResource() {
        assertThatThrownBy(() -> of(Map.of("GPU", -1.0)))
                .hasMessage("test: amount of 'GPU' must be non-negative (>= 0), got -1.0");
        assertThatThrownBy(() -> of(Map.of("GPU", Double.NaN))).hasMessageContaining(">= 0");
        assertThatThrownBy(() -> of(Map.of("GPU", Double.POSITIVE_INFINITY))).hasMessageContaining(">= 0");
        assertThatThrownBy(() -> of(Map.of("GPU", 0.00001)))
                .hasMessage("test: amount of 'GPU' (1.0E-5) is below the resolution of 0.0001");
    }

    @Test
    void zeroAmountsAreLeftOutAndAmountsComeBackInNameOrder() {
        Map<String, Double> given = new LinkedHashMap<>();
        given.put("node:x", 1.0);
        given.put("GPU", 0.0);
        given.put("CPU", 0.5);
        Resources r = of(given);
        assertThat(r.asMap()).containsOnlyKeys("CPU", "node:x");
        assertThat(r.amounts().keySet()).containsExactly("CPU", "node:x");
        assertThat(r.amounts()).containsEntry("CPU", 0.5).containsEntry("node:x", 1.0);
    }

    @Test
    void shortfallNamesWhatIsMissing() {
        assertThat(of(Map.of("GPU", 2.0)).shortfall(of(Map.of("GPU", 4.0, "CPU", 1.0)))).isEqualTo("1 CPU (has 0), 4 GPU (has 2)");
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
