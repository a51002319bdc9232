package beam.protocol;

import beam.util.DeviceTelemetry;
import beam.util.HostFacts;
import beam.util.HostFacts.Accelerator;
import beam.util.HostFacts.Interface;
import beam.util.HostFacts.Limits;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one JSON form of what a node reports about its host ({@link HostFacts}), its
 * accelerators and their load ({@link DeviceTelemetry}): the join's {@code facts} and
 * {@code accelerators}, the later facts' frames ({@link LinkCodec}), and the same objects in
 * views (a node row's {@code BeamFacts} and {@code BeamTelemetry}, {@code ray doctor}).
 * Reading is lenient, as the facts are shown, not acted on: a field of the wrong type reads
 * as absent. Keys are written in the order a node reports them.
 */
public final class FactsCodec {
    /** The one version written as a number: the protocol's, as in the join's {@code proto}. */
    static final String PROTOCOL = "protocol";
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private FactsCodec() {
    }

    // ------------------------------------------------------------------ writing

    public static ObjectNode hostFacts(HostFacts f) {
        ObjectNode o = F.objectNode();
        o.set("versions", versions(f.versions()));
        ArrayNode nics = o.putArray("interfaces");
        for (Interface nic : f.interfaces()) {
            ObjectNode n = nics.addObject().put("name", nic.name());
            nic.addresses().forEach(n.putArray("addresses")::add);
        }
        o.put("node_ip_interface", f.nodeIpInterface());
        o.set("accelerators", reportedAccelerators(f.accelerators()));
        o.put("probe_port", f.probePort());
        if (f.probeError() != null) o.put("probe_error", f.probeError());
        if (f.httpPorts() != null) o.set("http_ports", httpPorts(f.httpPorts()));
        if (f.versionWarnings() != null) f.versionWarnings().forEach(o.putArray("version_warnings")::add);
        if (f.hostLimits().reported()) o.set("host_limits", limits(f.hostLimits()));
        return o;
    }

    public static ObjectNode versions(Map<String, String> versions) {
        ObjectNode o = F.objectNode();
        versions.forEach((k, v) -> {
            if (k.equals(PROTOCOL) && v != null && v.matches("[0-9]{1,9}")) o.put(k, Integer.parseInt(v));
            else o.put(k, v);
        });
        return o;
    }

    /** Accelerators by resource, as the join and the node rows ({@code Accelerators}) show them. */
    public static ObjectNode accelerators(Map<String, Accelerator> byResource) {
        ObjectNode o = F.objectNode();
        byResource.forEach((r, a) -> o.set(r, accelerator(a)));
        return o;
    }

    /** Accelerators by resource as the facts report them: each with the visibility value the node started with. */
    public static ObjectNode reportedAccelerators(Map<String, Accelerator> byResource) {
        ObjectNode o = F.objectNode();
        byResource.forEach((r, a) -> o.set(r, accelerator(a).put("node_visible_value", a.nodeVisibleValue())));
        return o;
    }

    private static ObjectNode accelerator(Accelerator a) {
        ObjectNode o = F.objectNode();
        o.put("kind", a.kind());
        o.put("vendor", a.vendor());
        o.put("type", a.type());
        o.put("visible_var", a.visibleVar());
        o.put("source", a.source());
        a.ids().forEach(o.putArray("ids")::add);
        return o;
    }

    /** {@code host_limits}: an empty object where the node reported none. */
    public static ObjectNode limits(Limits l) {
        ObjectNode o = F.objectNode();
        if (!l.reported()) return o;
        if (l.shmPath() != null) o.put("shm_path", l.shmPath());
        if (l.shmBytes() != null) o.put("shm_bytes", l.shmBytes());
        if (l.shmError() != null) o.put("shm_error", l.shmError());
        if (l.openFiles() != null) o.put("open_files", l.openFiles());
        if (l.lockedMemory() != null) o.put("locked_memory", l.lockedMemory());
        if (l.limitsError() != null) o.put("limits_error", l.limitsError());
        if (l.rdmaDevices() != null) o.put("rdma_devices", l.rdmaDevices());
        l.env().forEach(o.putObject("env")::put);
        if (l.envLeftOut() != null) o.put("env_left_out", l.envLeftOut());
        return o;
    }

    static ObjectNode httpPorts(Map<String, Integer> ports) {
        ObjectNode o = F.objectNode();
        ports.forEach(o::put);
        return o;
    }

    public static ObjectNode telemetry(DeviceTelemetry t) {
        ObjectNode o = F.objectNode();
        o.put("tool", t.tool());
        o.put("resource", t.resource());
        o.put("sampled_ms", t.sampledMillis());
        ArrayNode list = o.putArray("devices");
        for (DeviceTelemetry.Device d : t.devices()) {
            ObjectNode j = list.addObject();
            j.put("index", d.index());
            j.put("uuid", d.uuid());
            j.put("name", d.name());
            j.put("utilization_gpu", d.utilizationPercent());
            j.put("memory_used_mib", d.memoryUsedMiB());
            j.put("memory_total_mib", d.memoryTotalMiB());
        }
        o.put("problem", t.problem());
        o.put("hung", t.hung());
        return o;
    }

    // ------------------------------------------------------------------ reading

    /** The facts a node sends at its join; absent or mistyped fields keep their empty value. */
    public static HostFacts hostFacts(JsonNode json) {
        if (!(json instanceof ObjectNode o)) return HostFacts.NONE;
        List<Interface> nics = new ArrayList<>();
        for (JsonNode nic : o.path("interfaces")) {
            List<String> addresses = new ArrayList<>();
            nic.path("addresses").forEach(a -> addresses.add(a.asText()));
            nics.add(new Interface(nic.path("name").asText(), addresses));
        }
        Map<String, Accelerator> accel = accelerators(o.get("accelerators"));
        Map<String, Integer> ports = o.get("http_ports") instanceof ObjectNode p ? httpPorts(p) : null;
        List<String> warnings = null;
        if (o.get("version_warnings") instanceof ArrayNode w) {
            warnings = new ArrayList<>();
            for (JsonNode s : w) warnings.add(s.asText());
        }
        return new HostFacts(versions(o.get("versions")), nics, text(o.get("node_ip_interface")), accel,
                o.path("probe_port").asInt(-1), text(o.get("probe_error")), ports, warnings, limits(o.get("host_limits")));
    }

    /** Component to version; a version that is not text or a number reads as null (not installed). */
    public static Map<String, String> versions(JsonNode json) {
        Map<String, String> out = new LinkedHashMap<>();
        if (json instanceof ObjectNode o) o.properties().forEach(e -> out.put(e.getKey(),
                e.getValue().isValueNode() && !e.getValue().isNull() ? e.getValue().asText() : null));
        return out;
    }

    /** Accelerators by resource (the join's, or the facts' with the node's visibility value); empty if not an object. */
    public static Map<String, Accelerator> accelerators(JsonNode json) {
        Map<String, Accelerator> out = new LinkedHashMap<>();
        if (!(json instanceof ObjectNode o)) return out;
        o.properties().forEach(e -> {
            JsonNode a = e.getValue();
            List<String> ids = new ArrayList<>();
            a.path("ids").forEach(i -> ids.add(i.asText()));
            out.put(e.getKey(), new Accelerator(text(a.get("kind")), text(a.get("vendor")), text(a.get("type")),
                    text(a.get("visible_var")), text(a.get("source")), ids, text(a.get("node_visible_value"))));
        });
        return out;
    }

    /** {@code host_limits}; {@link Limits#NONE} for an empty object or none. */
    public static Limits limits(JsonNode json) {
        if (!(json instanceof ObjectNode o) || o.isEmpty()) return Limits.NONE;
        Map<String, String> env = new LinkedHashMap<>();
        o.path("env").properties().forEach(e -> env.put(e.getKey(), e.getValue().asText()));
        return new Limits(text(o.get("shm_path")), number(o.get("shm_bytes")), text(o.get("shm_error")),
                number(o.get("open_files")), number(o.get("locked_memory")), text(o.get("limits_error")),
                o.path("rdma_devices").isInt() ? o.get("rdma_devices").asInt() : null, env,
                o.path("env_left_out").isInt() ? o.get("env_left_out").asInt() : null);
    }

    static Map<String, Integer> httpPorts(ObjectNode json) {
        Map<String, Integer> ports = new LinkedHashMap<>();
        json.properties().forEach(e -> ports.put(e.getKey(), e.getValue().asInt()));
        return ports;
    }

    /** What a node sent; refuses anything but an object with a list of at most 64 device objects. */
    public static DeviceTelemetry telemetry(JsonNode json) {
        if (json == null || !json.isObject()) throw new IllegalArgumentException("telemetry must be an object");
        JsonNode list = json.path("devices");
        if (!list.isArray()) throw new IllegalArgumentException("telemetry.devices must be a list");
        if (list.size() > DeviceTelemetry.MAX_DEVICES) {
            throw new IllegalArgumentException("telemetry.devices lists " + list.size() + " devices; at most "
                    + DeviceTelemetry.MAX_DEVICES);
        }
        List<DeviceTelemetry.Device> devices = new ArrayList<>();
        for (JsonNode d : list) {
            if (!d.isObject()) throw new IllegalArgumentException("telemetry.devices must hold objects");
            JsonNode util = d.path("utilization_gpu");
            devices.add(new DeviceTelemetry.Device(d.path("index").asText(), text(d.get("uuid")), text(d.get("name")),
                    util.isNumber() ? util.asDouble() : null, d.path("memory_used_mib").asLong(0),
                    d.path("memory_total_mib").asLong(0)));
        }
        return new DeviceTelemetry(text(json.get("tool")), text(json.get("resource")), json.path("sampled_ms").asLong(0),
                devices, text(json.get("problem")), json.path("hung").asBoolean(false));
    }

    private static Long number(JsonNode v) {
        return v != null && v.isIntegralNumber() ? v.asLong() : null;
    }

    private static String text(JsonNode v) {
        return v == null || v.isNull() ? null : v.asText();
    }
}
