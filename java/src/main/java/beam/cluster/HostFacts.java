package beam.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a node's daemon reported about its host, for {@code ray doctor}, version checks and
 * the node rows: at its join, then merged as more arrives (its HTTP ports, its Python-side
 * versions, the head's version warnings). Immutable: each change makes a new one. On the
 * wire and in a node row ({@code BeamFacts}) it is the JSON object of {@link #toJson}.
 *
 * @param versions        component to version ({@code beam}, {@code protocol}, {@code java}, Python packages)
 * @param interfaces      the host's network interfaces that are up, with their IPv4 addresses
 * @param nodeIpInterface the interface that carries the node IP, or null if none does
 * @param accelerators    per accelerator resource, what it is and the visibility variable the node started with
 * @param probePort       the port other nodes' reachability probes connect to, or -1
 * @param probeError      why the node could not listen for probes, or null
 * @param httpPorts       the HTTP face's ports by role ({@code metrics}, {@code agent}, ...), or null before they are known
 * @param versionWarnings each version that differs from the head's, or null before the check ran
 * @param hostLimits      shared memory size, open-files and locked-memory limits, NCCL/Gloo/vLLM variables
 *                        ({@code node/HostLimits}); empty when the node reported none
 */
public record HostFacts(ObjectNode versions, List<Interface> interfaces, String nodeIpInterface, ObjectNode accelerators,
                        int probePort, String probeError, Map<String, Integer> httpPorts, List<String> versionWarnings,
                        ObjectNode hostLimits) {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    /** A network interface and its IPv4 addresses. */
    public record Interface(String name, List<String> addresses) {
        public Interface {
            addresses = List.copyOf(addresses);
        }
    }

    public HostFacts {
        versions = versions.deepCopy();
        interfaces = List.copyOf(interfaces);
        accelerators = accelerators.deepCopy();
        httpPorts = httpPorts == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(httpPorts));
        versionWarnings = versionWarnings == null ? null : List.copyOf(versionWarnings);
        hostLimits = hostLimits.deepCopy();
    }

    /** Facts as the JSON object a node sends (keys it leaves out keep their empty value). */
    public static HostFacts fromJson(JsonNode json) {
        return none().merge(json);
    }

    /** A node that reported nothing. */
    static HostFacts none() {
        return new HostFacts(F.objectNode(), List.of(), null, F.objectNode(), -1, null, null, null, F.objectNode());
    }

    /**
     * These facts with those in {@code json} in their place (versions merged key by key, as a
     * node's Python-side versions join its Java-side ones).
     */
    public HostFacts merge(JsonNode json) {
        ObjectNode v = versions.deepCopy();
        if (json.get("versions") instanceof ObjectNode more) v.setAll(more);
        List<Interface> nics = interfaces;
        if (json.has("interfaces")) {
            nics = new ArrayList<>();
            for (JsonNode nic : json.get("interfaces")) {
                List<String> addresses = new ArrayList<>();
                nic.path("addresses").forEach(a -> addresses.add(a.asText()));
                nics.add(new Interface(nic.path("name").asText(), addresses));
            }
        }
        String nic = json.has("node_ip_interface") ? text(json.get("node_ip_interface")) : nodeIpInterface;
        ObjectNode accel = json.get("accelerators") instanceof ObjectNode a ? a : accelerators;
        int probe = json.has("probe_port") ? json.get("probe_port").asInt(-1) : probePort;
        String probeErr = json.has("probe_error") ? text(json.get("probe_error")) : probeError;
        Map<String, Integer> ports = httpPorts;
        if (json.get("http_ports") instanceof ObjectNode p) {
            ports = new LinkedHashMap<>();
            for (var e : p.properties()) ports.put(e.getKey(), e.getValue().asInt());
        }
        List<String> warnings = versionWarnings;
        if (json.get("version_warnings") instanceof ArrayNode w) {
            warnings = new ArrayList<>();
            for (JsonNode s : w) warnings.add(s.asText());
        }
        ObjectNode limits = json.get("host_limits") instanceof ObjectNode h ? h : hostLimits;
        return new HostFacts(v, nics, nic, accel, probe, probeErr, ports, warnings, limits);
    }

    /** The HTTP face's port for {@code role}, or -1 while it is not known. */
    public int httpPort(String role) {
        return httpPorts == null ? -1 : httpPorts.getOrDefault(role, -1);
    }

    /** The JSON object of these facts, in the order a node reports them. */
    public ObjectNode toJson() {
        ObjectNode o = F.objectNode();
        o.set("versions", versions.deepCopy());
        ArrayNode nics = o.putArray("interfaces");
        for (Interface nic : interfaces) {
            ObjectNode n = nics.addObject().put("name", nic.name());
            ArrayNode addresses = n.putArray("addresses");
            nic.addresses().forEach(addresses::add);
        }
        o.put("node_ip_interface", nodeIpInterface);
        o.set("accelerators", accelerators.deepCopy());
        o.put("probe_port", probePort);
        if (probeError != null) o.put("probe_error", probeError);
        if (httpPorts != null) httpPorts.forEach(o.putObject("http_ports")::put);
        if (versionWarnings != null) versionWarnings.forEach(o.putArray("version_warnings")::add);
        if (!hostLimits.isEmpty()) o.set("host_limits", hostLimits.deepCopy());
        return o;
    }

    private static String text(JsonNode value) {
        return value == null || value.isNull() ? null : value.asText();
    }
}
