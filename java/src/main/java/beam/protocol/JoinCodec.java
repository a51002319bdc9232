package beam.protocol;

import beam.protocol.LinkMessage.Join;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.TreeMap;

/**
 * A node's first frame, {@code join}, both ways: what it is, what its host is
 * ({@link FactsCodec}), its resources ({@link ResourceJson}) and its labels. Read leniently:
 * the head checks the fields itself, in the order that refuses a stranger before it reads any
 * more ({@link Join}).
 */
public final class JoinCodec {
    private JoinCodec() {
    }

    static ObjectNode header(Join j) {
        ObjectNode h = Frames.header("join");
        h.put("rid", j.rid());
        h.put("proto", j.proto());
        if (j.auth() != null) h.put("auth", j.auth());
        h.put("node_id", j.nodeId());
        h.put("node_ip", j.nodeIp());
        h.put("hostname", j.hostname());
        h.put("session_dir", j.sessionDir());
        h.set("resources", ResourceJson.write(j.resources()));
        h.set("facts", FactsCodec.hostFacts(j.facts()));
        if (j.accelerators() != null) h.set("accelerators", FactsCodec.accelerators(j.accelerators()));
        ObjectNode labels = h.putObject("labels");
        new TreeMap<>(j.labels()).forEach(labels::put);
        return h;
    }

    /** How a join's resources are named in an error about them, by the wire's check and the head's. */
    public static final String RESOURCES = "join resources";

    static Join read(ObjectNode h) {
        Map<String, Double> resources = Map.of();
        String badResources = null;
        try {
            resources = ResourceJson.read(h.get("resources"), RESOURCES);
        } catch (IllegalArgumentException e) {
            badResources = e.getMessage();
        }
        JsonNode accelerators = h.get("accelerators");
        boolean notAnObject = accelerators != null && !accelerators.isNull() && !accelerators.isObject();
        return new Join(h.path("rid").asLong(-1), h.path("proto").asInt(-1),
                h.hasNonNull("auth") ? h.get("auth").asText() : null, h.path("node_id").asText(""),
                h.path("node_ip").asText(""), h.path("hostname").asText(null), h.path("session_dir").asText(""),
                resources, badResources, notAnObject ? null : FactsCodec.accelerators(accelerators),
                JsonText.strings(h.get("labels"), "join labels", false), FactsCodec.hostFacts(h.get("facts")));
    }
}
