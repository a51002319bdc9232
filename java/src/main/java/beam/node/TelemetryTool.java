package beam.node;

import beam.cluster.AcceleratorKind;
import beam.cluster.NodeAccelerator;
import beam.util.DeviceTelemetry.Device;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The vendor tool that reports a node's accelerator load, by the kind detection found: the
 * same tool family detection uses, asked for utilization and memory. Kinds whose tools do
 * not report both (Intel data-center GPUs, TPU, Neuron, ...) have none: they are not sampled.
 *
 * @param name     the executable, as messages name it
 * @param resource the accelerator resource its devices count in
 * @param command  the command line, run from the daemon's PATH
 * @param parser   reads its whole stdout ({@link TelemetryParsers})
 */
record TelemetryTool(String name, String resource, List<String> command, Function<String, List<Device>> parser) {
    /** The tool for the first accelerator resource of this node that has one, or null. */
    static TelemetryTool forNode(Map<String, NodeAccelerator> accelerators) {
        for (NodeAccelerator a : accelerators.values()) {
            TelemetryTool t = forKind(a.kind());
            if (t != null) return t;
        }
        return null;
    }

    static TelemetryTool forKind(AcceleratorKind kind) {
        return switch (kind) {
            case NVIDIA_GPU -> new TelemetryTool("nvidia-smi", "GPU", List.of("nvidia-smi",
                    "--query-gpu=" + TelemetryParsers.CSV_FIELDS_NVIDIA, "--format=csv,noheader,nounits"),
                    TelemetryParsers::csv);
            case AMD_GPU -> new TelemetryTool("rocm-smi", "GPU",
                    List.of("rocm-smi", "--showuse", "--showmeminfo", "vram", "--json"), TelemetryParsers::rocmSmiJson);
            case NPU -> new TelemetryTool("npu-smi", "NPU", List.of("npu-smi", "info"), TelemetryParsers::npuSmi);
            case HPU -> new TelemetryTool("hl-smi", "HPU", List.of("hl-smi",
                    "--query-aip=" + TelemetryParsers.CSV_FIELDS_GAUDI, "--format=csv,noheader,nounits"),
                    TelemetryParsers::csv);
            default -> null;
        };
    }
}
