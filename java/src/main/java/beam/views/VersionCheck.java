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
     * A node's Python-side versions arrived (shortly after its join, the head's own included):
     * records them, and each joined node whose versions are known gets a warning for each
     * that differs from the head's. Which arrives first is a race (each node asks its Python
     * a moment after it starts), so the head's arrival compares the nodes that came before it.
     */
    public static void record(Cluster cluster, String nodeId, JsonNode versions) {
        synchronized (cluster) {
            Node node = cluster.onNodeVersions(nodeId, versions);
            if (node == null) return;
            HostFacts head = cluster.headFacts();
            if (!reported(head)) return; // compared when the head's own arrive
            for (Node n : node.isHead() ? List.copyOf(cluster.nodes()) : List.of(node)) {
                if (n.isHead() || !reported(n.facts())) continue;
                ObjectNode warnings = JsonNodeFactory.instance.objectNode();
                warnings.set("version_warnings", compare(head, n.facts(), n.ip()));
                cluster.onNodeFacts(n.id(), warnings);
            }
        }
    }

    /**
     * Whether the node's Python has answered (its join carries only the beam and protocol
     * versions); a Python that could not be run answers {@code "python": null}.
     */
    private static boolean reported(HostFacts facts) {
        return facts.versions().has("python");
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
