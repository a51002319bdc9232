package beam.node;

import beam.cluster.AcceleratorKind;
import beam.cluster.NodeAccelerator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;
import beam.codec.FrameCodec;

/**
 * Which accelerators this host has, found as Ray finds them where that is cheap: device
 * files and sysfs first (directory listings, no process started), a vendor tool only where
 * a device file says the vendor is there, or, for NVIDIA, where nothing else can tell (as
 * before: {@code nvidia-smi -L} when no /dev/nvidiaN exists). Everything is read under
 * {@code root} ("/" outside tests) so tests point it at a fake device tree, and tools are
 * found on the daemon's PATH, where tests put fake ones.
 *
 * <p>A count declared on `ray start` (--num-gpus, or --resources '{"NPU": 2}') wins over
 * detection; a visibility variable set on `ray start` (CUDA_VISIBLE_DEVICES=3,5,
 * ASCEND_RT_VISIBLE_DEVICES=...) names the ids and, undeclared, the count, as Ray honours it.
 */
public final class AcceleratorProbe {
    private final Path root;
    private final Map<String, String> env;
    private final Function<List<String>, List<String>> tool;

    /** @param tool runs a command and returns its stdout lines (empty if it cannot run) */
    AcceleratorProbe(Path root, Map<String, String> env, Function<List<String>, List<String>> tool) {
        this.root = root;
        this.env = env;
        this.tool = tool;
    }

    public AcceleratorProbe(Path root, Map<String, String> env) {
        this(root, env, VendorTools::run);
    }

    /**
     * The node's accelerators by resource. {@code declared} maps a resource to the count
     * given on `ray start` (GPU from --num-gpus, others from --resources); absent = detect.
     * Resources with no devices are left out.
     */
    public Map<String, NodeAccelerator> probe(Map<String, Integer> declared) {
        Map<String, NodeAccelerator> out = new LinkedHashMap<>();
        for (String resource : AcceleratorKind.RESOURCES) {
            AcceleratorKind kind = resource.equals("GPU") ? gpuKind() : AcceleratorKind.forResource(resource);
            Integer count = declared.get(resource);
            List<String> visible = kind.visibleIds(env);
            Detected found = null;
            String source = NodeAccelerator.DECLARED;
            if (count == null && visible != null) {
                count = visible.size();
                source = NodeAccelerator.VISIBLE;
            }
            if (count == null) {
                found = detect(kind);
                count = found.count;
                source = NodeAccelerator.DETECTED;
            }
            if (count <= 0) continue;
            String type = found != null ? found.type : typeWithoutCounting(kind);
            out.put(resource, new NodeAccelerator(kind, ids(count, visible), type, source));
        }
        return out;
    }

    /** The visible ids first; a declared count beyond them is filled with the lowest numbers not yet used. */
    private static List<String> ids(int count, List<String> visible) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < count && visible != null && i < visible.size(); i++) {
            if (!ids.contains(visible.get(i))) ids.add(visible.get(i));
        }
        for (int n = 0; ids.size() < count; n++) if (!ids.contains(String.valueOf(n))) ids.add(String.valueOf(n));
        return ids;
    }

    /** AMD if the host has AMD GPUs, else Intel if it has Intel data-center GPUs, else NVIDIA (Ray's order). */
    AcceleratorKind gpuKind() {
        if (exists("dev/kfd") && (!pciRenderNodes("0x1002", null).isEmpty() || amdToolCount() > 0)) {
            checkAmdVisibility();
            return AcceleratorKind.AMD_GPU;
        }
        if (!pciRenderNodes("0x8086", "0x0380").isEmpty()) return AcceleratorKind.INTEL_GPU;
        return AcceleratorKind.NVIDIA_GPU;
    }

    /** Ray refuses these on an AMD node at start; so does beam, with the same words. */
    private void checkAmdVisibility() {
        String hip = env.get("HIP_VISIBLE_DEVICES");
        String cuda = env.get("CUDA_VISIBLE_DEVICES");
        if (hip == null && env.get("ROCR_VISIBLE_DEVICES") != null) {
            throw new IllegalArgumentException("Please use HIP_VISIBLE_DEVICES instead of ROCR_VISIBLE_DEVICES");
        }
        if (hip != null && cuda != null && !hip.equals(cuda)) {
            throw new IllegalArgumentException("Inconsistent values found (HIP_VISIBLE_DEVICES=" + hip
                    + ", CUDA_VISIBLE_DEVICES=" + cuda + "). Please use either HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES.");
        }
    }

    record Detected(int count, String type) {
    }

    Detected detect(AcceleratorKind kind) {
        return switch (kind) {
            case NVIDIA_GPU -> nvidia();
            case AMD_GPU -> {
                List<Path> nodes = pciRenderNodes("0x1002", null);
                yield nodes.isEmpty() ? new Detected(amdToolCount(), null)
                        : new Detected(nodes.size(), DeviceNames.amd(read(nodes.get(0).resolve("device")).strip()));
            }
            case INTEL_GPU -> new Detected(pciRenderNodes("0x8086", "0x0380").size(), null);
            case NPU -> new Detected(list("dev", "davinci[0-9]+").size(), null);
            case HPU -> new Detected(Math.max(list("dev", "hl[0-9]+").size(), gaudiAccelNodes()), null);
            case TPU -> new Detected(list("dev", "accel[0-9]+").size(), typeWithoutCounting(kind));
            case NEURON -> new Detected(neuronCores(), typeWithoutCounting(kind));
            case TTNPU -> new Detected(list("dev/tenstorrent", "[0-9]+").size(), null);
            // Ray's fallback without the qb Runtime SDK: the device nodes of either family
            case MBLT -> {
                int aries = list("dev", "aries[0-9]+").size();
                int regulus = list("dev", "regulus-npu.*").size();
                yield new Detected(aries + regulus, aries > 0 ? "MOBILINT_ARIES" : regulus > 0 ? "MOBILINT_REGULUS" : null);
            }
            // Ray finds these through their Python SDKs only: declare them with --resources
            case RBLN, FURIOSA -> new Detected(0, null);
        };
    }

    /** The model where a file or the environment names it without counting devices. */
    private String typeWithoutCounting(AcceleratorKind kind) {
        return switch (kind) {
            case NVIDIA_GPU -> nvidiaModelFromProc();
            case TPU -> {
                String t = env.get("TPU_ACCELERATOR_TYPE"); // GKE sets it, e.g. v4-16
                yield t == null || t.isBlank() ? null : "TPU-" + t.split("-")[0].toUpperCase();
            }
            case NEURON -> "aws-neuron-core"; // Ray's ray.util.accelerators.AWS_NEURON_CORE
            default -> null;
        };
    }

    private Detected nvidia() {
        int files = list("dev", "nvidia[0-9]+").size();
        if (files > 0) return new Detected(files, nvidiaModelFromProc());
        int n = 0;
        String model = null;
        for (String line : tool.apply(List.of("nvidia-smi", "-L"))) {
            if (!line.startsWith("GPU ")) continue;
            n++;
            int colon = line.indexOf(": ");
            int paren = line.indexOf(" (UUID");
            if (model == null && colon > 0) model = DeviceNames.nvidia(line.substring(colon + 2, paren > colon ? paren : line.length()));
        }
        return new Detected(n, model);
    }

    /** The driver's /proc/driver/nvidia/gpus/PCI/information says "Model: NVIDIA H200". */
    private String nvidiaModelFromProc() {
        for (Path gpu : list("proc/driver/nvidia/gpus", ".+")) {
            for (String line : read(gpu.resolve("information")).split("\n")) {
                if (line.startsWith("Model:")) return DeviceNames.nvidia(line.substring(6).strip());
            }
        }
        return null;
    }

    private int amdToolCount() {
        int n = 0;
        for (String line : tool.apply(List.of("amd-smi", "list"))) if (line.startsWith("GPU:")) n++;
        if (n > 0) return n;
        java.util.Set<String> gpus = new java.util.TreeSet<>();
        for (String line : tool.apply(List.of("rocm-smi", "--showid"))) {
            var m = Pattern.compile("^GPU\\[(\\d+)]").matcher(line);
            if (m.find()) gpus.add(m.group(1));
        }
        return gpus.size();
    }

    /** DRM render nodes whose PCI device has this vendor (and class prefix): one per GPU. */
    private List<Path> pciRenderNodes(String vendor, String classPrefix) {
        List<Path> out = new ArrayList<>();
        for (Path node : list("sys/class/drm", "renderD[0-9]+")) {
            Path dev = node.resolve("device");
            if (!read(dev.resolve("vendor")).strip().equalsIgnoreCase(vendor)) continue;
            if (classPrefix != null && !read(dev.resolve("class")).strip().startsWith(classPrefix)) continue;
            out.add(dev);
        }
        return out;
    }

    /** Gaudi on newer kernels: /dev/accel/accelN of Habana's PCI vendor 0x1da3. */
    private int gaudiAccelNodes() {
        int n = 0;
        for (Path a : list("sys/class/accel", "accel[0-9]+")) {
            if (read(a.resolve("device/vendor")).strip().equalsIgnoreCase("0x1da3")) n++;
        }
        return n;
    }

    /** Ray: /opt/aws/neuron/bin/neuron-ls --json-output, summing each device's nc_count. */
    private int neuronCores() {
        Path ls = root.resolve("opt/aws/neuron/bin/neuron-ls");
        if (!Files.isExecutable(ls)) return 0;
        String json = String.join("\n", tool.apply(List.of(ls.toString(), "--json-output")));
        try {
            int n = 0;
            for (var d : FrameCodec.json().readTree(json)) n += d.path("nc_count").asInt(0);
            return n;
        } catch (IOException e) {
            return 0;
        }
    }

    private boolean exists(String rel) {
        return Files.exists(root.resolve(rel));
    }

    private List<Path> list(String dir, String nameRegex) {
        String[] names = root.resolve(dir).toFile().list((d, name) -> name.matches(nameRegex));
        List<Path> out = new ArrayList<>();
        if (names == null) return out;
        java.util.Arrays.sort(names);
        for (String n : names) out.add(root.resolve(dir).resolve(n));
        return out;
    }

    private static String read(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
