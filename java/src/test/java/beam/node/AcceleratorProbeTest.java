package beam.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import beam.cluster.AcceleratorKind;
import beam.cluster.NodeAccelerator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The probe on fake device trees under a temp root, with fake vendor tools: never this machine's devices. */
class AcceleratorProbeTest {
    @TempDir
    Path root;
    final Map<String, String> env = new HashMap<>();
    final Map<String, List<String>> tools = new HashMap<>();
    final List<String> ran = new ArrayList<>();

    private Map<String, NodeAccelerator> probe(Map<String, Integer> declared) {
        return new AcceleratorProbe(root, env, cmd -> {
            ran.add(String.join(" ", cmd));
            return tools.getOrDefault(cmd.get(0), List.of());
        }).probe(declared);
    }

    private void file(String rel, String content) throws IOException {
        Path p = root.resolve(rel);
        Files.createDirectories(p.getParent());
        Files.writeString(p, content);
    }

    private void renderNode(int n, String vendor, String device, String pciClass) throws IOException {
        file("sys/class/drm/renderD" + (128 + n) + "/device/vendor", vendor + "\n");
        file("sys/class/drm/renderD" + (128 + n) + "/device/device", device + "\n");
        file("sys/class/drm/renderD" + (128 + n) + "/device/class", pciClass + "\n");
    }

    @Test
    void anEmptyHostHasNoAcceleratorsAndOnlyAsksNvidiaSmi() {
        assertThat(probe(Map.of())).isEmpty();
        assertThat(ran).containsExactly("nvidia-smi -L");
    }

    @Test
    void nvidiaDeviceFilesCountAndTheDriverNamesTheModelWithoutRunningATool() throws IOException {
        for (int i = 0; i < 2; i++) file("dev/nvidia" + i, "");
        file("dev/nvidiactl", "");
        file("proc/driver/nvidia/gpus/0000:17:00.0/information", "Model: \t\t NVIDIA H200\nIRQ: 1\n");
        NodeAccelerator gpu = probe(Map.of()).get("GPU");
        assertThat(gpu.kind()).isEqualTo(AcceleratorKind.NVIDIA_GPU);
        assertThat(gpu.ids()).containsExactly("0", "1");
        assertThat(gpu.type()).isEqualTo("H200");
        assertThat(gpu.source()).isEqualTo(NodeAccelerator.DETECTED);
        assertThat(ran).isEmpty();
    }

    @Test
    void withoutDeviceFilesNvidiaSmiCountsAndNamesTheGpus() {
        tools.put("nvidia-smi", List.of("GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-1)", "GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-2)"));
        NodeAccelerator gpu = probe(Map.of()).get("GPU");
        assertThat(gpu.ids()).containsExactly("0", "1");
        assertThat(gpu.type()).isEqualTo("A100");
    }

    @Test
    void aVisibilityVariableSetOnStartNamesTheIdsAndTheCount() {
        env.put("CUDA_VISIBLE_DEVICES", "3,5");
        env.put("ASCEND_RT_VISIBLE_DEVICES", "4,6,7");
        Map<String, NodeAccelerator> got = probe(Map.of());
        assertThat(got.get("GPU").ids()).containsExactly("3", "5");
        assertThat(got.get("GPU").source()).isEqualTo(NodeAccelerator.VISIBLE);
        assertThat(got.get("NPU").ids()).containsExactly("4", "6", "7");
        assertThat(ran).isEmpty();
    }

    @Test
    void declaredCountsWinAndTakeVisibleIdsFirst() {
        env.put("HABANA_VISIBLE_MODULES", "2,3");
        Map<String, NodeAccelerator> got = probe(Map.of("GPU", 4, "HPU", 3, "neuron_cores", 2, "NPU", 0));
        assertThat(got.get("GPU").ids()).containsExactly("0", "1", "2", "3");
        assertThat(got.get("HPU").ids()).containsExactly("2", "3", "0");
        assertThat(got.get("neuron_cores").kind()).isEqualTo(AcceleratorKind.NEURON);
        assertThat(got).doesNotContainKey("NPU");
        assertThat(got.get("GPU").source()).isEqualTo(NodeAccelerator.DECLARED);
        assertThat(ran).isEmpty(); // declared: nothing is run
    }

    @Test
    void amdGpusAreFoundByKfdAndTheirRenderNodesAndNamedByPciId() throws IOException {
        file("dev/kfd", "");
        renderNode(0, "0x1002", "0x74a1", "0x038000");
        renderNode(1, "0x1002", "0x74a1", "0x038000");
        renderNode(2, "0x1a03", "0x2000", "0x030000"); // the BMC's VGA: not a GPU to count
        NodeAccelerator gpu = probe(Map.of()).get("GPU");
        assertThat(gpu.kind()).isEqualTo(AcceleratorKind.AMD_GPU);
        assertThat(gpu.ids()).containsExactly("0", "1");
        assertThat(gpu.type()).isEqualTo("AMD-Instinct-MI300X-OAM");
        assertThat(ran).isEmpty();
    }

    @Test
    void amdSmiCountsWhenSysfsShowsNothing() throws IOException {
        file("dev/kfd", "");
        tools.put("amd-smi", List.of("GPU: 0", "    BDF: 0000:0c:00.0", "GPU: 1", "    BDF: 0000:22:00.0"));
        assertThat(probe(Map.of()).get("GPU").ids()).containsExactly("0", "1");
        tools.clear();
        tools.put("rocm-smi", List.of("GPU[0]\t\t: Device ID: 0x74a1", "GPU[1]\t\t: Device ID: 0x74a1", "GPU[1]\t\t: x"));
        assertThat(probe(Map.of()).get("GPU").ids()).containsExactly("0", "1");
    }

    @Test
    void anAmdNodeRefusesRocrVisibleDevicesAsRayDoes() throws IOException {
        file("dev/kfd", "");
        renderNode(0, "0x1002", "0x740f", "0x038000");
        env.put("ROCR_VISIBLE_DEVICES", "0");
        assertThatThrownBy(() -> probe(Map.of())).hasMessageContaining("Please use HIP_VISIBLE_DEVICES instead of ROCR_VISIBLE_DEVICES");
        env.put("HIP_VISIBLE_DEVICES", "1");
        env.put("CUDA_VISIBLE_DEVICES", "0");
        assertThatThrownBy(() -> probe(Map.of())).hasMessageContaining("Inconsistent values");
    }

    @Test
    void intelDataCenterGpusCountButIntegratedOnesDoNot() throws IOException {
        renderNode(0, "0x8086", "0x0bd5", "0x038000");
        renderNode(1, "0x8086", "0x46a6", "0x030000"); // an integrated GPU (VGA class)
        NodeAccelerator gpu = probe(Map.of()).get("GPU");
        assertThat(gpu.kind()).isEqualTo(AcceleratorKind.INTEL_GPU);
        assertThat(gpu.ids()).containsExactly("0");
        env.put("ONEAPI_DEVICE_SELECTOR", "level_zero:1,3");
        assertThat(probe(Map.of()).get("GPU").ids()).containsExactly("1", "3");
    }

    @Test
    void ascendGaudiTpuTenstorrentAndNeuronFromTheirDeviceFilesAndTools() throws IOException {
        file("dev/davinci0", "");
        file("dev/davinci1", "");
        file("dev/davinci_manager", ""); // Ascend's control device: not an NPU
        file("dev/hl0", "");
        file("dev/hl_controlD0", "");
        file("dev/accel0", "");
        file("dev/accel1", "");
        file("dev/tenstorrent/0", "");
        Path ls = root.resolve("opt/aws/neuron/bin/neuron-ls");
        file("opt/aws/neuron/bin/neuron-ls", "#!/bin/sh\n");
        ls.toFile().setExecutable(true);
        tools.put(ls.toString(), List.of("[{\"neuron_device\": 0, \"nc_count\": 2},", "{\"neuron_device\": 1, \"nc_count\": 2}]"));
        env.put("TPU_ACCELERATOR_TYPE", "v5litepod-8");
        Map<String, NodeAccelerator> got = probe(Map.of());
        assertThat(got.get("NPU").ids()).containsExactly("0", "1");
        assertThat(got.get("HPU").ids()).containsExactly("0");
        assertThat(got.get("TPU").ids()).containsExactly("0", "1");
        assertThat(got.get("TPU").type()).isEqualTo("TPU-V5LITEPOD");
        assertThat(got.get("TTNPU").ids()).containsExactly("0");
        assertThat(got.get("neuron_cores").ids()).containsExactly("0", "1", "2", "3");
        assertThat(got.get("neuron_cores").type()).isEqualTo("aws-neuron-core");
    }

    @Test
    void gaudiOnNewerKernelsIsAnAccelNodeOfHabanasVendor() throws IOException {
        file("sys/class/accel/accel0/device/vendor", "0x1da3\n");
        file("sys/class/accel/accel1/device/vendor", "0x1da3\n");
        assertThat(probe(Map.of()).get("HPU").ids()).containsExactly("0", "1");
    }

    @Test
    void aHungVendorToolIsKilledAndCountsAsAbsent() throws Exception {
        Path tool = root.resolve("hang.sh");
        Files.writeString(tool, "#!/bin/sh\nexec sleep 60\n");
        tool.toFile().setExecutable(true);
        long t0 = System.nanoTime();
        assertThat(VendorTools.run(List.of(tool.toString()))).isEmpty();
        // killed at its timeout, not waited out (the tool sleeps 60 s); generous for a loaded machine
        assertThat((System.nanoTime() - t0) / 1e9).isLessThan(VendorTools.TIMEOUT_SECONDS + 40);
        assertThat(VendorTools.run(List.of(root.resolve("no-such-tool").toString()))).isEmpty();
    }
}
