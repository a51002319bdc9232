package beam.cluster;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
    private Placement() {
    }

    /** A node's free capacity while a plan is being tried. */
    private static final class Trial {
        final Node node;
        final Resources free;
        final NodeDevices devices;
        boolean used; // a bundle of this plan went here

        Trial(Node node) {
            this.node = node;
            this.free = node.available.copy();
            this.devices = node.devices.copy();
        }

        boolean take(Resources spec) {
            if (!free.fits(spec)) return false;
            if (devices.allocate(spec) == null) return false;
            free.subtract(spec);
            return true;
        }
    }

    /**
     * Returns the node for each bundle, or null if the group does not fit right now. The cost
     * follows the nodes a plan looks at, not the cluster: a node's trial copy is made only
     * once a bundle fits its free resources, so a 10,000-node head places a group without
     * copying 10,000 nodes' state.
     */
    static List<Node> plan(String strategy, List<Resources> specs, Collection<Node> nodes) {
        return plan(strategy, specs, List.of(), nodes);
    }

    /** As {@link #plan(String, List, Collection)}, bundle i only on nodes whose labels match {@code selectors[i]} (none: any). */
    static List<Node> plan(String strategy, List<Resources> specs, List<LabelSelector> selectors, Collection<Node> nodes) {
        List<LabelSelector> labels = selectors.isEmpty() ? java.util.Collections.nCopies(specs.size(), LabelSelector.NONE)
                : selectors;
        return switch (strategy) {
            case "STRICT_PACK" -> strictPack(specs, labels, nodes);
            case "STRICT_SPREAD" -> greedy(specs, labels, nodes, true, true);
            case "SPREAD" -> greedy(specs, labels, nodes, true, false);
            default -> greedy(specs, labels, nodes, false, false);
        };
    }

    private static List<Node> strictPack(List<Resources> specs, List<LabelSelector> selectors, Collection<Node> nodes) {
        Resources sum = new Resources();
        specs.forEach(sum::add);
        for (Node n : nodes) {
            if (!n.alive || !n.available.fits(sum)) continue;
            if (!selectors.stream().allMatch(s -> s.matches(n.labels))) continue;
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

    /**
     * Greedy bundle-by-bundle over the nodes in order: PACK tries the nodes it used first,
     * SPREAD the unused ones first; strict forbids reuse.
     */
    private static List<Node> greedy(List<Resources> specs, List<LabelSelector> selectors, Collection<Node> nodes,
                                     boolean preferUnused, boolean strict) {
        List<Node> result = new ArrayList<>(specs.size());
        Map<Node, Trial> trials = new HashMap<>();
        List<Trial> used = new ArrayList<>(); // in order of first use
        for (int i = 0; i < specs.size(); i++) {
            Resources spec = specs.get(i);
            LabelSelector selector = selectors.get(i);
            Trial chosen = preferUnused ? null : firstTaking(used, spec, selector);
            if (chosen == null) chosen = firstUnusedTaking(nodes, trials, spec, selector);
            if (chosen == null && preferUnused && !strict) chosen = firstTaking(used, spec, selector);
            if (chosen == null) return null;
            if (!chosen.used) {
                chosen.used = true;
                used.add(chosen);
            }
            result.add(chosen.node);
        }
        return result;
    }

    private static Trial firstTaking(List<Trial> trials, Resources spec, LabelSelector selector) {
        for (Trial t : trials) if (selector.matches(t.node.labels) && t.take(spec)) return t;
        return null;
    }

    private static Trial firstUnusedTaking(Collection<Node> nodes, Map<Node, Trial> trials, Resources spec,
                                           LabelSelector selector) {
        for (Node n : nodes) {
            if (!n.alive || !selector.matches(n.labels)) continue;
            Trial t = trials.get(n);
            if (t != null ? t.used : !n.available.fits(spec)) continue; // untouched: its free is the node's
            if (t == null) {
                t = new Trial(n);
                trials.put(n, t);
            }
            if (t.take(spec)) return t;
        }
        return null;
    }

    /**
     * Why a group can never be placed on the cluster as it is (judged against node totals,
     * not current use), or null if it could be once resources free up.
     */
    static String neverFits(String strategy, List<Resources> specs, List<Node> nodes) {
        return neverFits(strategy, specs, List.of(), nodes);
    }

    /** As {@link #neverFits(String, List, List)}, judging bundle i only on the nodes {@code selectors[i]} matches. */
    static String neverFits(String strategy, List<Resources> specs, List<LabelSelector> selectors, List<Node> nodes) {
        List<Node> alive = nodes.stream().filter(n -> n.alive).toList();
        if (alive.isEmpty()) return "the cluster has no live nodes";
        for (int i = 0; i < specs.size(); i++) {
            Resources spec = specs.get(i);
            String unknownIp = unknownNodeIp(spec, alive);
            if (unknownIp != null) return "bundle " + i + " " + unknownIp;
            LabelSelector selector = selectors.isEmpty() ? LabelSelector.NONE : selectors.get(i);
            if (!selector.isEmpty()) {
                String labelled = noNodeLabelled(selector, alive);
                if (labelled != null) return "bundle " + i + " " + labelled;
                if (alive.stream().noneMatch(n -> selector.matches(n.labels) && fitsTotal(n, spec))) {
                    return "bundle " + i + " " + spec + " fits on no node whose labels match " + selector;
                }
            }
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

    /**
     * Why a feasible group is still waiting, naming the short resource, the nodes and the
     * amounts: "needs {GPU: 8} on one node (STRICT_PACK); the largest free GPU is 4 on 10.0.0.2".
     */
    static String waitingReason(String strategy, List<Resources> specs, List<Node> nodes) {
        List<Node> alive = nodes.stream().filter(n -> n.alive).toList();
        Resources sum = new Resources();
        specs.forEach(sum::add);
        if (strategy.equals("STRICT_PACK")) {
            StringBuilder sb = new StringBuilder("needs " + sum + " on one node (STRICT_PACK)");
            for (Map.Entry<String, Long> e : sum.asMap().entrySet()) {
                Node best = null;
                for (Node n : alive) if (best == null || n.available.get(e.getKey()) > best.available.get(e.getKey())) best = n;
                if (best != null && best.available.get(e.getKey()) < e.getValue()) {
                    sb.append("; the largest free ").append(e.getKey()).append(" is ")
                            .append(Resources.format(best.available.get(e.getKey()))).append(" on ").append(best.ip);
                }
            }
            return sb.toString();
        }
        if (strategy.equals("STRICT_SPREAD")) {
            List<String> able = new ArrayList<>();
            for (Node n : alive) if (n.available.fits(specs.get(0))) able.add(n.ip);
            return "needs " + specs.size() + " distinct nodes with " + specs.get(0) + " free (STRICT_SPREAD); "
                    + (able.isEmpty() ? "none has it now" : "only " + able.size() + " " + (able.size() == 1 ? "has" : "have")
                    + " it now: " + String.join(", ", able));
        }
        StringBuilder sb = new StringBuilder("needs " + sum + " in " + specs.size() + " bundles (" + strategy + ")");
        for (Map.Entry<String, Long> e : sum.asMap().entrySet()) {
            long free = 0;
            List<String> where = new ArrayList<>();
            for (Node n : alive) {
                long f = n.available.get(e.getKey());
                free += f;
                if (f > 0) where.add(Resources.format(f) + " on " + n.ip);
            }
            if (free < e.getValue()) {
                sb.append("; only ").append(Resources.format(free)).append(' ').append(e.getKey()).append(" free")
                        .append(where.isEmpty() ? "" : " (" + String.join(", ", where) + ")");
            }
        }
        if (sb.indexOf("; only") < 0) sb.append("; enough is free in total but no node has room for a whole bundle: ")
                .append(freeSummary(alive));
        return sb.toString();
    }

    /**
     * Why {@code spec} asks for {@code node:<ip>} of an IP no live node has, or null. vLLM
     * pins its workers with {@code node:<VLLM_HOST_IP>}; when the driver's host is known to
     * the cluster by another IP, the group waits for a node that will never join, so the
     * reason names both sides and the two ways out.
     */
    static String unknownNodeIp(Resources spec, List<Node> alive) {
        for (String key : spec.asMap().keySet()) {
            if (!key.startsWith(NODE_PREFIX) || key.equals(HEAD_RESOURCE)) continue;
            if (alive.stream().anyMatch(n -> n.total.get(key) > 0)) continue;
            String ip = key.substring(NODE_PREFIX.length());
            return "asks for " + key + " but no node has IP " + ip + "; the cluster's node IPs are "
                    + String.join(", ", alive.stream().map(n -> n.ip).distinct().toList())
                    + ". vLLM asks for node:<VLLM_HOST_IP>: start that host's node with `ray start --node-ip-address "
                    + ip + "`, or set VLLM_HOST_IP to one of the IPs the cluster knows";
        }
        return null;
    }

    /**
     * Why {@code selector} matches no live node, naming each node's labels (its id left out),
     * or null when one matches.
     */
    static String noNodeLabelled(LabelSelector selector, List<Node> alive) {
        if (selector.isEmpty() || alive.stream().anyMatch(n -> selector.matches(n.labels))) return null;
        StringBuilder sb = new StringBuilder("asks for a node whose labels match label_selector " + selector
                + ", and no live node's do: ");
        for (Node n : alive) {
            Map<String, String> shown = new java.util.TreeMap<>(n.labels);
            shown.remove(Labels.NODE_ID);
            sb.append(n.ip).append(' ').append(shown).append(n == alive.get(alive.size() - 1) ? "" : "; ");
        }
        return sb.toString();
    }

    private static final String NODE_PREFIX = "node:";
    private static final String HEAD_RESOURCE = "node:__internal_head__";

    static boolean fitsTotal(Node n, Resources spec) {
        return n.total.fits(spec) && NodeDevices.couldFit(n.accelerators, spec);
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
