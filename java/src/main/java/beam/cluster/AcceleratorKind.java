package beam.cluster;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The accelerator kinds Ray 2.60 knows (ray/_private/accelerators/), written once: the
 * resource each is counted in, the variable a worker's visible devices are named in, the
 * switch that leaves that variable alone, and whether a request may share one unit. The
 * table in docs/DESIGN.md ("Accelerators") is this enum in prose; detection lives in
 * beam.node.AcceleratorProbe.
 *
 * <p>Three kinds share the resource {@code GPU}; a node is one of them (AMD if it has AMD
 * GPUs, else Intel if it has Intel ones, else NVIDIA, as Ray chooses).
 */
public enum AcceleratorKind {
    NVIDIA_GPU("GPU", "NVIDIA", "CUDA_VISIBLE_DEVICES", "RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES", false, false),
    AMD_GPU("GPU", "AMD", "HIP_VISIBLE_DEVICES", "RAY_EXPERIMENTAL_NOSET_HIP_VISIBLE_DEVICES", false, false),
    INTEL_GPU("GPU", "Intel", "ONEAPI_DEVICE_SELECTOR", "RAY_EXPERIMENTAL_NOSET_ONEAPI_DEVICE_SELECTOR", true, false),
    TPU("TPU", "Google", "TPU_VISIBLE_CHIPS", "RAY_EXPERIMENTAL_NOSET_TPU_VISIBLE_CHIPS", false, true),
    NPU("NPU", "Huawei Ascend", "ASCEND_RT_VISIBLE_DEVICES", "RAY_EXPERIMENTAL_NOSET_ASCEND_RT_VISIBLE_DEVICES", false, false),
    HPU("HPU", "Intel Gaudi", "HABANA_VISIBLE_MODULES", "RAY_EXPERIMENTAL_NOSET_HABANA_VISIBLE_MODULES", false, true),
    NEURON("neuron_cores", "AWS Neuron", "NEURON_RT_VISIBLE_CORES", "RAY_EXPERIMENTAL_NOSET_NEURON_RT_VISIBLE_CORES", true, true),
    RBLN("RBLN", "Rebellions", "RBLN_DEVICES", "RAY_EXPERIMENTAL_NOSET_RBLN_RT_VISIBLE_DEVICES", false, true),
    TTNPU("TTNPU", "Tenstorrent", "TT_VISIBLE_DEVICES", "RAY_EXPERIMENTAL_NOSET_TENSTORRENT_VISIBLE_DEVICES", true, true),
    FURIOSA("FURIOSA", "FuriosaAI", "FURIOSA_VISIBLE_DEVICES", "RAY_EXPERIMENTAL_NOSET_FURIOSA_VISIBLE_DEVICES", true, true),
    MBLT("MBLT", "Mobilint", "QBRUNTIME_VISIBLE_DEVICES", "RAY_EXPERIMENTAL_NOSET_MBLT_RT_VISIBLE_DEVICES", true, true);

    /** Ray's ONEAPI_DEVICE_SELECTOR names level-zero devices: {@code level_zero:0,1}. */
    static final String ONEAPI_PREFIX = "level_zero:";
    /** TPU chip layouts Ray accepts for one worker (TPU_VALID_CHIP_OPTIONS). */
    static final List<Long> TPU_CHIP_OPTIONS = List.of(1L, 2L, 4L, 8L);

    public final String resource;
    public final String vendor;
    public final String visibleVar;
    public final String nosetVar;
    /** Ray reads this NOSET switch with env_bool ("1"/"true"); the others with any non-empty value. */
    private final boolean nosetIsBool;
    /** Ray's validate_resource_request_quantity refuses fractions for this kind. */
    public final boolean wholeUnitsOnly;

    AcceleratorKind(String resource, String vendor, String visibleVar, String nosetVar, boolean nosetIsBool,
                    boolean wholeUnitsOnly) {
        this.resource = resource;
        this.vendor = vendor;
        this.visibleVar = visibleVar;
        this.nosetVar = nosetVar;
        this.nosetIsBool = nosetIsBool;
        this.wholeUnitsOnly = wholeUnitsOnly;
    }

    /** Resource names that carry per-unit device ids (Ray's unit-instance resources), in a stable order. */
    public static final List<String> RESOURCES = List.of("GPU", "TPU", "NPU", "HPU", "neuron_cores", "RBLN", "TTNPU", "FURIOSA", "MBLT");

    /** The kind a non-GPU resource always is; for GPU the node's vendor decides (null here). */
    public static AcceleratorKind forResource(String resource) {
        for (AcceleratorKind k : values()) if (!k.resource.equals("GPU") && k.resource.equals(resource)) return k;
        return null;
    }

    /**
     * The error Ray gives for a request of this kind it refuses (fractions of a whole-only
     * kind, a TPU count that is no chip layout), or null if the amount is fine.
     */
    public String checkRequest(long units) {
        if (units <= 0) return null;
        if (this == TPU && (units % Resources.UNIT != 0 || !TPU_CHIP_OPTIONS.contains(units / Resources.UNIT))) {
            return "The number of requested 'TPU' was set to " + Resources.format(units)
                    + " which is not a supported chip configuration. Supported configs: (1, 2, 4, 8)";
        }
        if (wholeUnitsOnly && units % Resources.UNIT != 0) {
            return resource + " resource quantity must be whole numbers. The specified quantity "
                    + Resources.format(units) + " is invalid.";
        }
        return null;
    }

    /**
     * The variable this node names visible devices in. AMD follows Ray: CUDA_VISIBLE_DEVICES
     * when the node was started with it and without HIP_VISIBLE_DEVICES.
     */
    public String visibleVar(Map<String, String> nodeEnv) {
        if (this == AMD_GPU && nodeEnv.get("CUDA_VISIBLE_DEVICES") != null && nodeEnv.get(visibleVar) == null) {
            return "CUDA_VISIBLE_DEVICES";
        }
        return visibleVar;
    }

    /** Device ids named by this kind's visibility variable in {@code env}, or null if it is unset. */
    public List<String> visibleIds(Map<String, String> env) {
        String v = env.get(visibleVar(env));
        if (v == null) return null;
        if (this == INTEL_GPU && v.startsWith(ONEAPI_PREFIX)) v = v.substring(ONEAPI_PREFIX.length());
        List<String> ids = new ArrayList<>();
        if (v.equals("NoDevFiles")) return ids;
        for (String s : v.split(",")) if (!s.isBlank()) ids.add(s.trim());
        return ids;
    }

    /** Whether {@code env} (the worker's) asks Ray not to set this kind's variable. */
    public boolean noset(Map<String, String> env) {
        String v = env.get(nosetVar);
        if (v == null || v.isEmpty()) return false;
        return !nosetIsBool || v.equals("1") || v.equalsIgnoreCase("true");
    }

    /**
     * The variables a worker given {@code ids} of this kind gets (a null value removes one),
     * as Ray's set_current_process_visible_accelerator_ids sets them: nothing at all with
     * NOSET, nothing for no ids (Ray 2.58 leaves the variable alone then), and for TPU the
     * chip bounds, or nothing when the worker has all of the node's chips.
     */
    public Map<String, String> visibility(List<String> ids, int nodeUnits, Map<String, String> env) {
        Map<String, String> out = new LinkedHashMap<>();
        if (ids.isEmpty() || noset(env)) return out;
        String joined = String.join(",", ids);
        switch (this) {
            case INTEL_GPU -> out.put(visibleVar, ONEAPI_PREFIX + joined);
            case TPU -> {
                out.put("TPU_CHIPS_PER_HOST_BOUNDS", null);
                out.put("TPU_HOST_BOUNDS", null);
                if (ids.size() == nodeUnits) return out;
                out.put(visibleVar, joined);
                if (ids.size() <= 2) {
                    out.put("TPU_CHIPS_PER_HOST_BOUNDS", ids.size() == 1 ? "1,1,1" : "1,2,1");
                    out.put("TPU_HOST_BOUNDS", "1,1,1");
                }
            }
            default -> out.put(visibleVar(env), joined);
        }
        return out;
    }
}
