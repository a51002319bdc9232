package beam.node;

import beam.codec.FrameCodec;
import beam.util.DeviceTelemetry.Device;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads what each vendor tool prints about its devices' load into {@link Device}s. Each
 * parser takes the tool's whole stdout and throws {@link IllegalArgumentException} naming
 * the line it could not read: a tool whose output changed shape is reported, not guessed at.
 * Memory is in MiB throughout (Ray's unit for {@code ray_node_gram_used}).
 */
final class TelemetryParsers {
    /** nvidia-smi and hl-smi take the same CSV query: index, uuid, name, utilization, memory used, memory total. */
    static final String CSV_FIELDS_NVIDIA = "index,uuid,name,utilization.gpu,memory.used,memory.total";
    static final String CSV_FIELDS_GAUDI = "index,uuid,name,utilization.aip,memory.used,memory.total";
    private static final long MIB = 1024 * 1024;
    /** npu-smi info: a device's first row "| 0     910B3   | OK   | 93.6   40   0 / 0 |". */
    private static final Pattern NPU_FIRST = Pattern.compile("^\\|\\s*(\\d+)\\s+(\\S+)\\s*\\|\\s*(\\S+)\\s*\\|");
    /** ... and its second "| 0     | 0000:C1:00.0 | 0    0 / 0    3161 / 65536 |": AICore %, memory, HBM. */
    private static final Pattern NPU_SECOND = Pattern.compile(
            "^\\|\\s*\\d+\\s*\\|\\s*(\\S+)\\s*\\|\\s*([\\d.]+)\\s+(\\d+)\\s*/\\s*(\\d+)(?:\\s+(\\d+)\\s*/\\s*(\\d+))?\\s*\\|");

    private TelemetryParsers() {
    }

    /**
     * {@code --format=csv,noheader,nounits}: "0, GPU-5a1c..., NVIDIA H200, 35, 1024, 143771".
     * A utilization the device does not report ("[N/A]", "[Not Supported]") is null; memory is MiB.
     */
    static List<Device> csv(String out) {
        List<Device> devices = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (line.isBlank()) continue;
            String[] f = line.split(",");
            if (f.length != 6) throw new IllegalArgumentException("expected 6 comma-separated fields, got: " + clip(line));
            devices.add(new Device(f[0].strip(), blankToNull(f[1]), blankToNull(f[2]), optionalNumber(f[3]),
                    wholeNumber(f[4], line), wholeNumber(f[5], line)));
        }
        return devices;
    }

    /**
     * {@code rocm-smi --showuse --showmeminfo vram --json}: {"card0": {"GPU use (%)": "3",
     * "VRAM Total Memory (B)": "...", "VRAM Total Used Memory (B)": "..."}, "system": {...}}; bytes become MiB.
     */
    static List<Device> rocmSmiJson(String out) {
        JsonNode root = json(out);
        List<Device> devices = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : root.properties()) {
            if (!e.getKey().startsWith("card")) continue;
            JsonNode c = e.getValue();
            String total = c.path("VRAM Total Memory (B)").asText(null);
            String used = c.path("VRAM Total Used Memory (B)").asText(null);
            if (total == null || used == null) {
                throw new IllegalArgumentException(e.getKey() + " has no 'VRAM Total Memory (B)' / 'VRAM Total Used Memory (B)'");
            }
            devices.add(new Device(e.getKey().substring(4), blankToNull(c.path("Unique ID").asText(null)),
                    blankToNull(c.path("Card series").asText(null)), optionalNumber(c.path("GPU use (%)").asText("")),
                    wholeNumber(used, e.getKey()) / MIB, wholeNumber(total, e.getKey()) / MIB));
        }
        return devices;
    }

    /**
     * {@code npu-smi info}: two table rows per device, the first with its id and name, the
     * second with AICore utilization, then memory and (on HBM models) HBM used / total in MB;
     * the HBM figures are the device memory where the model has them.
     */
    static List<Device> npuSmi(String out) {
        List<Device> devices = new ArrayList<>();
        String[] lines = out.split("\n");
        for (int i = 0; i + 1 < lines.length; i++) {
            Matcher first = NPU_FIRST.matcher(lines[i]);
            if (!first.find() || first.group(3).equals("Health")) continue;
            Matcher second = NPU_SECOND.matcher(lines[i + 1]);
            if (!second.find()) throw new IllegalArgumentException("device " + first.group(1)
                    + ": the row after it has no 'AICore(%) Memory-Usage(MB)': " + clip(lines[i + 1]));
            boolean hbm = second.group(6) != null && Long.parseLong(second.group(6)) > 0;
            long used = Long.parseLong(hbm ? second.group(5) : second.group(3));
            long total = Long.parseLong(hbm ? second.group(6) : second.group(4));
            devices.add(new Device(first.group(1), second.group(1), first.group(2),
                    Double.parseDouble(second.group(2)), used, total));
            i++;
        }
        if (devices.isEmpty() && !out.isBlank()) throw new IllegalArgumentException("no device rows in: " + clip(out));
        return devices;
    }

    private static JsonNode json(String out) {
        try {
            JsonNode root = FrameCodec.json().readTree(out);
            if (root == null || !root.isObject()) throw new IllegalArgumentException("expected a JSON object, got: " + clip(out));
            return root;
        } catch (IOException e) {
            throw new IllegalArgumentException("not JSON: " + clip(out));
        }
    }

    private static Double optionalNumber(String s) {
        try {
            return Double.parseDouble(s.strip());
        } catch (NumberFormatException e) {
            return null; // "[N/A]", "[Not Supported]"
        }
    }

    private static long wholeNumber(String s, String where) {
        try {
            return (long) Double.parseDouble(s.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + clip(s.strip()) + "' is not a number in: " + clip(where));
        }
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }

    private static String clip(String s) {
        return s.length() <= 120 ? s : s.substring(0, 120) + "...";
    }
}
