package beam.views;

import beam.cluster.Cluster;
import beam.cluster.HostFacts;
import beam.cluster.Node;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.logging.Logger;

/**
 * Compares a joining node's versions with the head's. Different beam, Python (major.minor),
 * vLLM, torch or cloudpickle versions across hosts are the usual cause of pickling errors
 * and NCCL hangs, so each mismatch is a warning in the head's log, in `ray status` and in
 * `ray doctor`. (A different protocol version is refused at join.)
 */
public final class VersionCheck {
    static final List<String> KEYS = List.of("beam", "python", "vllm", "torch", "cloudpickle");
    private static final Logger LOG = Logger.getLogger(VersionCheck.class.getName());

    private VersionCheck() {
    }

    /**
     * A node's Python-side versions arrived (shortly after its join): records them in its
     * facts with a warning for each that differs from the head's.
     */
    public static void record(Cluster cluster, String nodeId, JsonNode versions) {
        synchronized (cluster) {
            Node node = cluster.onNodeVersions(nodeId, versions);
            if (node == null) return;
            ObjectNode warnings = JsonNodeFactory.instance.objectNode();
            warnings.set("version_warnings", compare(cluster.headFacts(), node.facts(), node.ip()));
            cluster.onNodeFacts(nodeId, warnings);
        }
    }

    /** The warnings for {@code node}'s versions against {@code head}'s. */
    static ArrayNode compare(HostFacts head, HostFacts node, String ip) {
        ArrayNode warnings = JsonNodeFactory.instance.arrayNode();
        JsonNode hv = head.versions();
        JsonNode nv = node.versions();
        for (String key : KEYS) {
            String a = comparable(key, hv.path(key).asText(null));
            String b = comparable(key, nv.path(key).asText(null));
            if (a == null && b == null) continue;
            if (a == null || !a.equals(b)) {
                String w = key + " " + orNone(nv.path(key).asText(null)) + " on " + ip + " differs from "
                        + orNone(hv.path(key).asText(null)) + " on the head";
                warnings.add(w);
                LOG.warning("version mismatch: " + w + "; install the same versions on every node");
            }
        }
        return warnings;
    }

    private static String comparable(String key, String version) {
        if (version == null || !key.equals("python")) return version;
        String[] parts = version.split("\\.");
        return parts.length >= 2 ? parts[0] + "." + parts[1] : version;
    }

    private static String orNone(String v) {
        return v == null ? "(not installed)" : v;
    }
}
