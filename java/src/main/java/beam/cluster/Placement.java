package beam.cluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where the bundles of a placement group go. Pure functions over the nodes' current free
 * resources: nothing is reserved here; {@link Cluster} commits a returned plan.
 *
 * <ul>
 *   <li>PACK: as few nodes as possible; fill a node before spilling to the next.</li>
 *   <li>SPREAD: a different node for each bundle where possible, else reuse.</li>
 *   <li>STRICT_PACK: every bundle on one node, or wait.</li>
 *   <li>STRICT_SPREAD: every bundle on a distinct node, or wait.</li>
 * </ul>
 * Nodes are tried in the order given (the caller puts the head first).
 */
final class Placement {
    static final List<String> STRATEGIES = List.of("PACK", "SPREAD", "STRICT_PACK", "STRICT_SPREAD");

    private Placement() {
    }

    /** A node's free capacity while a plan is being tried. */
    private static final class Trial {
        final Node node;
        final Resources free;
        final GpuSlots gpus;

        Trial(Node node) {
            this.node = node;
            this.free = node.available.copy();
            this.gpus = GpuSlots.of(node.gpus.snapshot());
        }

        boolean take(Resources spec) {
            if (!free.fits(spec)) return false;
            if (gpus.allocate(spec.get("GPU")) == null) return false;
            free.subtract(spec);
            return true;
        }
    }

    /** Returns the node for each bundle, or null if the group does not fit right now. */
    static List<Node> plan(String strategy, List<Resources> specs, List<Node> nodes) {
        List<Trial> trials = new ArrayList<>();
        for (Node n : nodes) if (n.alive) trials.add(new Trial(n));
        return switch (strategy) {
            case "STRICT_PACK" -> strictPack(specs, nodes);
            case "STRICT_SPREAD" -> greedy(specs, trials, true, true);
            case "SPREAD" -> greedy(specs, trials, true, false);
            default -> greedy(specs, trials, false, false);
        };
    }

    private static List<Node> strictPack(List<Resources> specs, List<Node> nodes) {
        for (Node n : nodes) {
            if (!n.alive) continue;
            Trial t = new Trial(n);
            boolean all = true;
            for (Resources spec : specs) {
                if (!t.take(spec)) {
                    all = false;
                    break;
                }
            }
            if (all) return specs.stream().map(s -> n).toList();
        }
        return null;
    }

    /** Greedy bundle-by-bundle: PACK prefers used nodes, SPREAD unused ones; strict forbids reuse. */
    private static List<Node> greedy(List<Resources> specs, List<Trial> trials, boolean preferUnused, boolean strict) {
        List<Node> result = new ArrayList<>();
        Set<Trial> used = new LinkedHashSet<>();
        for (Resources spec : specs) {
            List<Trial> order = new ArrayList<>();
            if (preferUnused) {
                for (Trial t : trials) if (!used.contains(t)) order.add(t);
                if (!strict) order.addAll(used);
            } else {
                order.addAll(used);
                for (Trial t : trials) if (!used.contains(t)) order.add(t);
            }
            Trial chosen = null;
            for (Trial t : order) {
                if (t.take(spec)) {
                    chosen = t;
                    break;
                }
            }
            if (chosen == null) return null;
            used.add(chosen);
            result.add(chosen.node);
        }
        return result;
    }

    /**
     * Why a group can never be placed on the cluster as it is (judged against node totals,
     * not current use), or null if it could be once resources free up.
     */
    static String neverFits(String strategy, List<Resources> specs, List<Node> nodes) {
        List<Node> alive = nodes.stream().filter(n -> n.alive).toList();
        if (alive.isEmpty()) return "the cluster has no live nodes";
        for (int i = 0; i < specs.size(); i++) {
            Resources spec = specs.get(i);
            if (alive.stream().noneMatch(n -> fitsTotal(n, spec))) {
                return "bundle " + i + " " + spec + " fits on no node: " + largest(alive, spec);
            }
        }
        if (strategy.equals("STRICT_PACK")) {
            Resources sum = new Resources();
            specs.forEach(sum::add);
            if (alive.stream().noneMatch(n -> fitsTotal(n, sum))) {
                return "needs " + sum + " on one node (STRICT_PACK): " + largest(alive, sum);
            }
        }
        if (strategy.equals("STRICT_SPREAD") && specs.size() > alive.size()) {
            return "needs " + specs.size() + " distinct nodes (STRICT_SPREAD) but the cluster has " + alive.size();
        }
        return null;
    }

    /** Why a feasible group is still waiting: which resource is short on which nodes. */
    static String waitingReason(String strategy, List<Resources> specs, List<Node> nodes) {
        List<Node> alive = nodes.stream().filter(n -> n.alive).toList();
        Resources sum = new Resources();
        specs.forEach(sum::add);
        if (strategy.equals("STRICT_PACK")) {
            return "needs " + sum + " on one node (STRICT_PACK); free now: " + freeSummary(alive);
        }
        if (strategy.equals("STRICT_SPREAD")) {
            return "needs " + specs.size() + " distinct nodes with " + specs.get(0) + " each (STRICT_SPREAD); free now: "
                    + freeSummary(alive);
        }
        return "needs " + sum + " in " + specs.size() + " bundles (" + strategy + "); free now: " + freeSummary(alive);
    }

    static boolean fitsTotal(Node n, Resources spec) {
        Map<String, Long> gpuCaps = new HashMap<>();
        for (String id : n.gpuIds) gpuCaps.put(id, Resources.UNIT);
        return n.total.fits(spec) && GpuSlots.couldFit(gpuCaps, spec.get("GPU"));
    }

    private static String largest(List<Node> nodes, Resources spec) {
        StringBuilder sb = new StringBuilder();
        for (String key : spec.asMap().keySet()) {
            Node best = null;
            for (Node n : nodes) if (best == null || n.total.get(key) > best.total.get(key)) best = n;
            if (best != null && best.total.get(key) < spec.get(key)) {
                if (!sb.isEmpty()) sb.append("; ");
                sb.append("the largest ").append(key).append(" total on a node is ")
                        .append(Resources.format(best.total.get(key))).append(" on ").append(best.ip);
            }
        }
        return sb.isEmpty() ? "no node has all of " + spec + " at once" : sb.toString();
    }

    static String freeSummary(List<Node> nodes) {
        StringBuilder sb = new StringBuilder();
        for (Node n : nodes) {
            if (!sb.isEmpty()) sb.append("; ");
            Resources shown = new Resources();
            for (String k : List.of("GPU", "CPU")) shown.set(k, n.available.get(k));
            sb.append(n.ip).append(' ').append(shown);
        }
        return sb.toString();
    }
}
