package beam.cluster;

import beam.util.HostFacts;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Compares each node's versions with the head's. Different beam, Python (major.minor),
 * vLLM, torch or cloudpickle versions across hosts are the usual cause of pickling errors
 * and NCCL hangs, so each mismatch is a warning on the node (in `ray status` and `ray doctor`;
 * the daemon logs it). A different protocol version is refused at join.
 */
final class VersionRules {
    static final List<String> KEYS = List.of("beam", "python", "vllm", "torch", "cloudpickle");

    private VersionRules() {
    }

    /**
     * {@code arrived}'s Python-side versions were just recorded (each node asks its Python a
     * moment after it starts, so the head's may come before or after a node's): the head's
     * arrival compares every node that reported before it, a node's arrival compares that
     * node. Sets each compared node's warnings (replacing the last) and returns them all; the
     * caller holds the cluster's lock.
     */
    static List<String> compare(Node arrived, Collection<Node> nodes) {
        Node head = arrived.head ? arrived : nodes.stream().filter(n -> n.head).findFirst().orElse(null);
        if (head == null || !reported(head.facts)) return List.of(); // compared when the head's own arrive
        List<String> all = new ArrayList<>();
        for (Node n : arrived.head ? nodes : List.of(arrived)) {
            if (n.head || !reported(n.facts)) continue;
            List<String> warnings = compare(head.facts, n.facts, n.ip);
            n.facts = n.facts.withVersionWarnings(warnings);
            all.addAll(warnings);
        }
        return all;
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
                warnings.add(key + " " + orNone(nv.get(key)) + " on " + ip + " differs from " + orNone(hv.get(key))
                        + " on the head");
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
