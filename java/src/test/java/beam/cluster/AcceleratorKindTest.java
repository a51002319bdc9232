package beam.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The visibility rules of Ray's accelerator managers, kind by kind. */
class AcceleratorKindTest {
    private static Map<String, String> env(String... kv) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put(kv[i], kv[i + 1]);
        return m;
    }

    @Test
    void eachKindSetsItsOwnVariableToTheIds() {
        assertThat(AcceleratorKind.NVIDIA_GPU.visibility(List.of("1"), 4, env())).isEqualTo(Map.of("CUDA_VISIBLE_DEVICES", "1"));
        assertThat(AcceleratorKind.AMD_GPU.visibility(List.of("0", "2"), 4, env())).isEqualTo(Map.of("HIP_VISIBLE_DEVICES", "0,2"));
        assertThat(AcceleratorKind.INTEL_GPU.visibility(List.of("0", "1"), 4, env()))
                .isEqualTo(Map.of("ONEAPI_DEVICE_SELECTOR", "level_zero:0,1"));
        assertThat(AcceleratorKind.NPU.visibility(List.of("0"), 2, env())).isEqualTo(Map.of("ASCEND_RT_VISIBLE_DEVICES", "0"));
        assertThat(AcceleratorKind.HPU.visibility(List.of("1"), 2, env())).isEqualTo(Map.of("HABANA_VISIBLE_MODULES", "1"));
        assertThat(AcceleratorKind.NEURON.visibility(List.of("0", "1"), 2, env())).isEqualTo(Map.of("NEURON_RT_VISIBLE_CORES", "0,1"));
        assertThat(AcceleratorKind.RBLN.visibility(List.of("3"), 4, env())).isEqualTo(Map.of("RBLN_DEVICES", "3"));
        assertThat(AcceleratorKind.NVIDIA_GPU.visibility(List.of(), 4, env())).isEmpty();
    }

    @Test
    void amdOnANodeStartedWithOnlyCudaVisibleDevicesUsesThatVariable() {
        assertThat(AcceleratorKind.AMD_GPU.visibility(List.of("1"), 2, env("CUDA_VISIBLE_DEVICES", "0,1")))
                .isEqualTo(Map.of("CUDA_VISIBLE_DEVICES", "1"));
    }

    @Test
    void nosetLeavesTheVariableAloneAsEachManagerReadsIt() {
        assertThat(AcceleratorKind.NVIDIA_GPU.visibility(List.of("0"), 1,
                env("RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES", "1"))).isEmpty();
        assertThat(AcceleratorKind.NPU.visibility(List.of("0"), 1,
                env("RAY_EXPERIMENTAL_NOSET_ASCEND_RT_VISIBLE_DEVICES", "yes"))).isEmpty(); // any value
        // Neuron and Intel read theirs with env_bool: "0" or "no" means set it after all
        assertThat(AcceleratorKind.NEURON.visibility(List.of("0"), 1,
                env("RAY_EXPERIMENTAL_NOSET_NEURON_RT_VISIBLE_CORES", "0"))).containsKey("NEURON_RT_VISIBLE_CORES");
        assertThat(AcceleratorKind.NEURON.visibility(List.of("0"), 1,
                env("RAY_EXPERIMENTAL_NOSET_NEURON_RT_VISIBLE_CORES", "true"))).isEmpty();
    }

    @Test
    void tpuSetsChipBoundsForOneOrTwoChipsAndNothingForAll() {
        Map<String, String> one = new LinkedHashMap<>();
        one.put("TPU_CHIPS_PER_HOST_BOUNDS", "1,1,1");
        one.put("TPU_HOST_BOUNDS", "1,1,1");
        one.put("TPU_VISIBLE_CHIPS", "2");
        assertThat(AcceleratorKind.TPU.visibility(List.of("2"), 4, env())).isEqualTo(one);
        assertThat(AcceleratorKind.TPU.visibility(List.of("0", "1"), 4, env())).containsEntry("TPU_CHIPS_PER_HOST_BOUNDS", "1,2,1");
        Map<String, String> all = AcceleratorKind.TPU.visibility(List.of("0", "1", "2", "3"), 4, env());
        assertThat(all).doesNotContainKey("TPU_VISIBLE_CHIPS").containsEntry("TPU_HOST_BOUNDS", null);
    }

    @Test
    void requestsRayRefusesAreRefusedWithRaysWords() {
        assertThat(AcceleratorKind.HPU.checkRequest(Resources.UNIT / 2))
                .isEqualTo("HPU resource quantity must be whole numbers. The specified quantity 0.5 is invalid.");
        assertThat(AcceleratorKind.NEURON.checkRequest(Resources.UNIT / 2)).startsWith("neuron_cores resource quantity");
        assertThat(AcceleratorKind.NPU.checkRequest(Resources.UNIT / 2)).isNull(); // Ascend shares a unit
        assertThat(AcceleratorKind.TPU.checkRequest(3 * Resources.UNIT)).contains("Supported configs: (1, 2, 4, 8)");
        assertThat(AcceleratorKind.TPU.checkRequest(4 * Resources.UNIT)).isNull();
    }

    @Test
    void visibleIdsParseEachKindsFormat() {
        assertThat(AcceleratorKind.INTEL_GPU.visibleIds(env("ONEAPI_DEVICE_SELECTOR", "level_zero:0,2"))).containsExactly("0", "2");
        assertThat(AcceleratorKind.NVIDIA_GPU.visibleIds(env("CUDA_VISIBLE_DEVICES", "NoDevFiles"))).isEmpty();
        assertThat(AcceleratorKind.NVIDIA_GPU.visibleIds(env("CUDA_VISIBLE_DEVICES", ""))).isEmpty();
        assertThat(AcceleratorKind.NPU.visibleIds(env())).isNull();
    }

    @Test
    void everyResourceWithIdsIsInTheTable() {
        for (String r : AcceleratorKind.RESOURCES) {
            assertThat(r.equals("GPU") || AcceleratorKind.forResource(r) != null).as(r).isTrue();
        }
        for (AcceleratorKind k : AcceleratorKind.values()) assertThat(AcceleratorKind.RESOURCES).contains(k.resource);
    }
}
