package beam.views;

import beam.cluster.Cluster;
import beam.cluster.NodeSnapshot;
import beam.util.HostFacts;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
     * It reads copies and writes through {@link Cluster#onVersionWarnings}, never holding the
     * cluster's lock: each arrival reads after its own write, so whichever of the head and a
     * node comes second sees both, and a comparison made twice writes the same warnings.
     */
    public static void record(Cluster cluster, String nodeId, Map<String, String> versions) {
        NodeSnapshot arrived = cluster.onNodeVersions(nodeId, versions);
        if (arrived == null) return;
        List<NodeSnapshot> nodes = arrived.head() ? cluster.nodeSnapshots() : List.of(arrived);
        HostFacts head = arrived.head() ? arrived.facts() : headFacts(cluster.nodeSnapshots());
        if (!reported(head)) return; // compared when the head's own arrive
        for (NodeSnapshot n : nodes) {
            if (!n.head() && reported(n.facts())) cluster.onVersionWarnings(n.id(), compare(head, n.facts(), n.ip()));
        }
    }

    private static HostFacts headFacts(List<NodeSnapshot> nodes) {
        for (NodeSnapshot n : nodes) if (n.head()) return n.facts();
        return null; // no head yet: nothing to compare with
    }

    /**
     * Whether the node's Python has answered (its join carries only the beam and protocol
     * versions); a Python that could not be run answers {@code "python": null}.
     */
    private static boolean reported(HostFacts facts) {
        return facts != null && facts.versions().containsKey("python");
    }

    /** The warnings for {@code node}'s versions against {@code head}'s. */
    static List<String> compare(HostFacts head, HostFacts node, String ip) {
        List<String> warnings = new ArrayList<>();
        Map<String, String> hv = head.versions();
        Map<String, String> nv = node.versions();
        for (String key : KEYS) {
            String a = comparable(key, hv.get(key));
            String b = comparable(key, nv.get(key));
            if (a == null && b == null) continue;
            if (a == null || !a.equals(b)) {
                String w = key + " " + orNone(nv.get(key)) + " on " + ip + " differs from " + orNone(hv.get(key))
                        + " on the head";
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
