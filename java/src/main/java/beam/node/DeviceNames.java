package beam.node;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Accelerator models named as Ray names them in its accelerator_type resource. */
final class DeviceNames {
    /** Ray's NVIDIA_GPU_NAME_PATTERN: "NVIDIA H200" gives "H200", "Tesla V100-SXM2-16GB" gives "V100". */
    private static final Pattern NVIDIA = Pattern.compile("\\w+\\s+([A-Z0-9]+)");
    /** PCI device ids of AMD Instinct GPUs, as Ray's amd_product_dict names them. */
    private static final Map<String, String> AMD = Map.ofEntries(
            Map.entry("0x66a1", "AMD-Instinct-MI50"),
            Map.entry("0x738c", "AMD-Instinct-MI100"),
            Map.entry("0x7408", "AMD-Instinct-MI250X"),
            Map.entry("0x740c", "AMD-Instinct-MI250X-MI250"),
            Map.entry("0x740f", "AMD-Instinct-MI210"),
            Map.entry("0x74a0", "AMD-Instinct-MI300A"),
            Map.entry("0x74a1", "AMD-Instinct-MI300X-OAM"),
            Map.entry("0x74a2", "AMD-Instinct-MI308X-OAM"),
            Map.entry("0x74a5", "AMD-Instinct-MI325X-OAM"),
            Map.entry("0x74a9", "AMD-Instinct-MI300X-HF"),
            Map.entry("0x75a0", "AMD-Instinct-MI350X-OAM"),
            Map.entry("0x75a3", "AMD-Instinct-MI355X-OAM"));

    private DeviceNames() {
    }

    static String nvidia(String name) {
        Matcher m = NVIDIA.matcher(name.strip());
        return m.lookingAt() ? m.group(1) : null;
    }

    static String amd(String pciDeviceId) {
        return AMD.get(pciDeviceId.toLowerCase());
    }
}
