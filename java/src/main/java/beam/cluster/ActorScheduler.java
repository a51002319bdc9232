package beam.cluster;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * Where actors run: an actor is placed on the first live node (or bundle of its placement
 * group) with room for its request and its devices, and started there; one that finds no
 * room stays PENDING and is tried again whenever resources are freed or a node joins
 * ({@link #reschedule}), after the waiting placement groups. Guarded by the {@link Cluster}
 * lock, as everything it touches.
 */
final class ActorScheduler {
    private final Collection<Node> nodes;
    private final PlacementGroups groups;
    private final ActorIndex index;
    /** The PENDING actors, in creation order: what a reschedule tries, without walking every actor. */
    private final LinkedHashSet<ActorRecord> pending = new LinkedHashSet<>();
    /** Nodes by their {@code node:<ip>} resources, in join order (what {@link #candidates} reads). */
    private final Map<String, List<Node>> nodesWith = new HashMap<>();
    /** Every node that joined, by id (what a node affinity names). */
    private final Map<String, Node> nodesById = new HashMap<>();

    ActorScheduler(Collection<Node> nodes, PlacementGroups groups, ActorIndex index) {
        this.nodes = nodes;
        this.groups = groups;
        this.index = index;
    }

    /** Indexes a joined node by its {@code node:<ip>} resources. */
    void nodeAdded(Node node) {
        nodesById.put(node.id, node);
        for (String name : node.total.asMap().keySet()) {
            if (name.startsWith("node:")) nodesWith.computeIfAbsent(name, k -> new ArrayList<>()).add(node);
        }
    }

    /** Places a new PENDING actor if it fits now; otherwise it waits for the next reschedule. */
    boolean submit(ActorRecord actor) {
        pending.add(actor);
        return tryPlace(actor);
    }

    /** {@code actor} no longer waits (it died). */
    void forget(ActorRecord actor) {
        pending.remove(actor);
    }

    /** Tries pending groups, then pending actors; called whenever resources are freed or added. */
    void reschedule() {
        groups.retryPending();
        for (ActorRecord a : new ArrayList<>(pending)) {
            if (a.state == ActorRecord.State.PENDING) tryPlace(a);
        }
    }

    /**
     * A node joined or was lost: whether a waiting actor could ever fit is judged against the
     * nodes' totals, so it changes only then (not when resources are freed), and only then is
     * it judged again. It stops at the first node that could hold the actor.
     */
    void membershipChanged() {
        for (ActorRecord a : pending) {
            if (a.state == ActorRecord.State.PENDING && a.group == null) a.waitingReason = neverFitsAnyNode(a.options);
        }
    }

    private boolean tryPlace(ActorRecord actor) {
        Resources request = actor.options.request();
        if (actor.group != null) {
            if (actor.group.state != GroupState.CREATED) return false;
            int index = actor.options.bundleIndex();
            List<Bundle> candidates = index >= 0 ? List.of(actor.group.bundles.get(index)) : actor.group.bundles;
            for (Bundle b : candidates) {
                if (!b.available.fits(request)) continue;
                Map<String, Map<String, Long>> devices = b.devices.allocate(request);
                if (devices == null) continue;
                b.available.subtract(request);
                b.actors++;
                actor.bundle = b;
                start(actor, b.node, devices);
                return true;
            }
            return false;
        }
        Node pinned = affinityTarget(actor);
        if (pinned != null) return placeOn(actor, pinned);
        if (actor.options.affinity() != null && !actor.options.affinity().soft()) return false;
        Collection<Node> candidates = preferredFirst(actor.options.preferredLabels(),
                actor.options.spread() ? leastLoadedFirst(request) : candidates(request));
        for (Node n : candidates) {
            if (placeOn(actor, n)) return true;
        }
        return false;
    }

    private boolean placeOn(ActorRecord actor, Node n) {
        Resources request = actor.options.request();
        if (!n.alive || !n.available.fits(request) || !actor.options.labelSelector().matches(n.labels)) return false;
        Map<String, Map<String, Long>> devices = n.devices.allocate(request);
        if (devices == null) return false;
        n.available.subtract(request);
        start(actor, n, devices);
        return true;
    }

    /**
     * The node a node affinity holds the actor to, as Ray: the named node while it is alive and
     * could ever hold the actor (it waits there while the node is busy, hard or soft); null when
     * there is none or no such node, where a soft affinity runs anywhere and a hard one fails.
     */
    private Node affinityTarget(ActorRecord actor) {
        NodeAffinity affinity = actor.options.affinity();
        if (affinity == null) return null;
        Node n = nodesById.get(affinity.nodeId());
        return n != null && n.alive && couldEverHold(n, actor.options) ? n : null;
    }

    /** A pending actor with a hard node affinity that no live node satisfies: Ray fails it as unschedulable. */
    boolean pinnedToNoUsableNode(ActorRecord actor) {
        NodeAffinity affinity = actor.options.affinity();
        return actor.state == ActorRecord.State.PENDING && affinity != null && !affinity.soft()
                && affinityTarget(actor) == null;
    }

    /** The pending actors hard-pinned to {@code node} (which is being lost). */
    List<ActorRecord> pendingPinnedTo(Node node) {
        List<ActorRecord> out = new ArrayList<>();
        for (ActorRecord a : pending) {
            NodeAffinity affinity = a.options.affinity();
            if (affinity != null && !affinity.soft() && affinity.nodeId().equals(node.id)) out.add(a);
        }
        return out;
    }

    /** NodeLabelSchedulingStrategy's soft expressions: the nodes they hold on first, the rest after, each in order. */
    private static Collection<Node> preferredFirst(LabelSelector preferred, Collection<Node> nodes) {
        if (preferred.isEmpty()) return nodes;
        List<Node> out = new ArrayList<>(nodes.size());
        for (Node n : nodes) if (preferred.matches(n.labels)) out.add(n);
        for (Node n : nodes) if (!preferred.matches(n.labels)) out.add(n);
        return out;
    }

    /** The "SPREAD" strategy, as Ray's: the live nodes that hold the fewest live actors first, then in join order. */
    private List<Node> leastLoadedFirst(Resources request) {
        List<Node> live = new ArrayList<>();
        Map<Node, Integer> load = new HashMap<>();
        for (Node n : candidates(request)) {
            if (!n.alive) continue;
            live.add(n);
            int count = 0;
            for (ActorRecord a : index.on(n)) if (a.state != ActorRecord.State.DEAD) count++;
            load.put(n, count);
        }
        live.sort(java.util.Comparator.comparingInt(load::get));
        return live;
    }

    /**
     * The nodes that could hold {@code request}, in join order: only those with its
     * {@code node:<ip>} resource when it names one (an actor pinned to a node costs one
     * lookup, not a pass over 10,000 nodes), else every node.
     */
    private Collection<Node> candidates(Resources request) {
        for (String name : request.asMap().keySet()) {
            if (name.startsWith("node:")) return nodesWith.getOrDefault(name, List.of());
        }
        return nodes;
    }

    private void start(ActorRecord actor, Node node, Map<String, Map<String, Long>> devices) {
        actor.node = node;
        actor.waitingReason = null;
        index.placed(actor);
        actor.held = actor.options.request().copy();
        actor.devicesHeld = devices;
        actor.deviceIds = NodeDevices.ids(devices);
        actor.state = ActorRecord.State.STARTING;
        pending.remove(actor);
        node.link.startActor(actor, actor.deviceIds);
    }

    /** Whether {@code n} could hold an actor with {@code options} once empty: its totals and its labels. */
    private static boolean couldEverHold(Node n, ActorOptions options) {
        return Placement.fitsTotal(n, options.request()) && options.labelSelector().matches(n.labels);
    }

    /** Why an actor with {@code options} fits no live node even when it is empty, or null if one could hold it. */
    String neverFitsAnyNode(ActorOptions options) {
        Resources request = options.request();
        List<Node> live = new ArrayList<>();
        for (Node n : nodes) {
            if (!n.alive) continue;
            if (couldEverHold(n, options)) return null;
            live.add(n);
        }
        String unknownIp = Placement.unknownNodeIp(request, live);
        if (unknownIp != null) return unknownIp;
        String labelled = Placement.noNodeLabelled(options.labelSelector(), live);
        if (labelled != null) return labelled;
        return "no node in the cluster has (" + Placement.freeSummary(live) + " free now)";
    }
}
