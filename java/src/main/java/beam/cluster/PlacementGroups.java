package beam.cluster;

import beam.util.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The placement group directory: creation, placement, removal, the table views, and every
 * transition of a group's {@link GroupState}:
 * <pre>
 *   PENDING --all bundles fit at once--> CREATED --a node with bundles is lost--> RESCHEDULING
 *      |                                  |  ^--------the lost bundles fit again-------+
 *      +----removed, or its owner gone----+------------> REMOVED <---------------------+
 * </pre>
 * A PENDING group is retried whenever resources are freed or a node joins, and tells its
 * watchers why it waits: at once, then every 10 s. RESCHEDULING keeps the surviving bundles
 * and places the lost ones again, as Ray does; watchers heard pg_ready already. REMOVED is
 * final: the actors inside are killed and the reservations return. Guarded by the cluster's
 * lock, which the cluster hands it at construction: every entry point is called with it held
 * by {@link Cluster}, or takes it itself. Time (the warnings' cadence, a group's age) is read
 * on the cluster's clock, so a test moves it by hand.
 */
final class PlacementGroups {
    static final long WARN_EVERY_NANOS = 10_000_000_000L;
    /** Removed groups kept for placement_group_table, as Ray keeps them (not in {@code status}). */
    static final int MAX_REMOVED = 10_000;

    private final ClusterTables cluster;
    /** The cluster's lock (see {@link ClusterTables#lock}). */
    private final Object lock;
    private final Clock clock;
    private final LinkedHashMap<String, PlacementGroup> groups = new LinkedHashMap<>();
    /**
     * The PENDING and RESCHEDULING groups, which every freeing of resources retries: a set of
     * their own, so that a retry costs the groups that wait, not all 100,000 groups there are.
     */
    private final LinkedHashSet<PlacementGroup> waiting = new LinkedHashSet<>();
    /** Ids of the REMOVED groups still in {@link #groups}, oldest removal first. */
    private final ArrayDeque<String> removed = new ArrayDeque<>();
    /** Package-private so that tests can see that nothing is left behind in it. */
    final GroupIndex index = new GroupIndex();

    PlacementGroups(ClusterTables cluster, Object lock, Clock clock) {
        this.cluster = cluster;
        this.lock = lock;
        this.clock = clock;
    }

    public void create(Client owner, String id, String name, String strategy, List<Resources> bundles,
                       boolean detached) throws RequestException {
        create(owner, id, name, strategy, bundles, List.of(), detached);
    }

    /** {@code selectors}: Ray's bundle_label_selector, one per bundle, or empty. */
    public void create(Client owner, String id, String name, String strategy, List<Resources> bundles,
                       List<LabelSelector> selectors, boolean detached) throws RequestException {
        synchronized (lock) {
            if (groups.containsKey(id)) throw RequestException.value("placement group id " + id + " is already in use");
            GroupRules.check(strategy, bundles);
            PlacementGroup g = new PlacementGroup(id, name, strategy, bundles, selectors, owner, detached, clock.nanoTime());
            index.watch(g, owner);
            index.created(g);
            groups.put(id, g);
            waiting.add(g);
            if (!tryPlace(g)) warnWaiting(g, true);
        }
    }

    /** Subscribes {@code client} to the group being placed; tells it at once if it is placed or removed already. */
    public void watch(Client client, String id) throws RequestException {
        synchronized (lock) {
            PlacementGroup g = require(id);
            switch (g.state) {
                case CREATED -> client.groupReady(id);
                case REMOVED -> client.groupRemoved(id);
                case PENDING, RESCHEDULING -> index.watch(g, client);
            }
        }
    }

    public void remove(String id) throws RequestException {
        synchronized (lock) {
            PlacementGroup g = require(id);
            removeGroup(g);
        }
    }

    private void removeGroup(PlacementGroup g) {
        if (g.state == GroupState.REMOVED) return;
        for (ActorRecord a : cluster.actorsIn(g)) cluster.killActor(a, new DeathCause.GroupRemoved());
        boolean wasCreated = g.state == GroupState.CREATED || g.state == GroupState.RESCHEDULING;
        g.state = GroupState.REMOVED;
        waiting.remove(g);
        for (Client w : g.watchers) w.groupRemoved(g.id);
        index.removed(g);
        removed.addLast(g.id);
        while (removed.size() > MAX_REMOVED) groups.remove(removed.pollFirst()); // O(1), in any order of removal
        if (wasCreated) {
            for (Bundle b : g.bundles) {
                if (!b.placed() || !b.node.alive) continue;
                // Actors still exiting keep their share until their process is gone; the
                // bundle's reservation returns to the node now, minus nothing: the actors'
                // resources came out of the bundle, not the node.
                b.node.available.add(b.spec);
                b.node.devices.release(b.devicesTakenFromNode);
            }
            cluster.reschedule();
        }
    }

    /** Clients gone: the groups they watch forget them, then those they own go (their own groups, not all). */
    void onOwnersGone(Set<Client> gone) {
        for (Client c : gone) index.forgetWatcher(c);
        for (Client c : gone) index.ownedBy(c).forEach(this::removeGroup);
    }

    /** The groups with a bundle on a lost node reschedule those bundles (a pass over these groups only). */
    void onNodeLost(Node node) {
        for (PlacementGroup g : index.lostWith(node)) {
            if (g.state != GroupState.CREATED && g.state != GroupState.RESCHEDULING) continue;
            boolean hit = false;
            for (Bundle b : g.bundles) {
                if (b.node == node) {
                    b.node = null;
                    b.available = null;
                    b.devices = null;
                    hit = true;
                }
            }
            if (hit) {
                g.state = GroupState.RESCHEDULING;
                waiting.add(g);
            }
        }
    }

    PlacementGroup require(String id) throws RequestException {
        PlacementGroup g = groups.get(id);
        if (g == null) throw RequestException.value("placement group " + id + " does not exist");
        return g;
    }

    /** Rejects an actor whose request can never fit the bundle(s) it asks for. */
    void checkActorFits(PlacementGroup g, ActorOptions options) throws RequestException {
        if (g.state == GroupState.REMOVED) {
            throw RequestException.value("placement group " + g.id + " has been removed");
        }
        int index = options.bundleIndex();
        if (index >= g.bundles.size() || index < -1) {
            throw RequestException.value("bundle index " + index + " is out of range: placement group " + g.id
                    + " has " + g.bundles.size() + " bundles (use -1 for any)");
        }
        List<Bundle> candidates = index >= 0 ? List.of(g.bundles.get(index)) : g.bundles;
        Resources request = options.request();
        for (Bundle b : candidates) {
            if (b.spec.fits(request) && devicesCouldFit(b.spec, request)) return;
        }
        String where = index >= 0 ? "bundle " + index + " " + g.bundles.get(index).spec : "any bundle of the group";
        throw RequestException.value("the actor requests " + request + ", which can never fit " + where
                + " of placement group " + g.id + ". Request at most what the bundle holds.");
    }

    private static boolean devicesCouldFit(Resources bundle, Resources request) {
        for (String r : AcceleratorKind.RESOURCES) if (!deviceCouldFit(bundle.get(r), request.get(r))) return false;
        return true;
    }

    private static boolean deviceCouldFit(long bundleGpu, long request) {
        if (request <= 0) return true;
        if (bundleGpu >= Resources.UNIT) {
            return request <= bundleGpu && (request < Resources.UNIT || request % Resources.UNIT == 0);
        }
        return request <= bundleGpu;
    }

    void retryPending() {
        for (PlacementGroup g : new ArrayList<>(waiting)) {
            if (waiting.contains(g)) tryPlace(g); // a retry above may have placed or removed it
        }
    }

    /**
     * The nodes the bundles not placed yet may go to. After a node loss the strict strategies
     * still hold for the whole group, not only for the bundles re-placed: STRICT_SPREAD avoids
     * the nodes its surviving bundles are on, STRICT_PACK goes where they are.
     */
    private Collection<Node> candidates(PlacementGroup g) {
        List<Node> kept = g.bundles.stream().filter(Bundle::placed).map(b -> b.node).distinct().toList();
        if (kept.isEmpty()) return cluster.nodes();
        return switch (g.strategy) {
            case "STRICT_SPREAD" -> cluster.nodes().stream().filter(n -> !kept.contains(n)).toList();
            case "STRICT_PACK" -> kept;
            default -> cluster.nodes();
        };
    }

    /** Places every bundle not placed yet (all of them, unless rescheduling after a node loss). */
    private boolean tryPlace(PlacementGroup g) {
        g.attempts++;
        List<Bundle> todo = g.bundles.stream().filter(b -> !b.placed()).toList();
        List<Resources> specs = todo.stream().map(b -> b.spec).toList();
        List<Node> plan = Placement.plan(g.strategy, specs, todo.stream().map(b -> b.selector).toList(), candidates(g));
        if (plan == null) return false;
        boolean rescheduled = g.state == GroupState.RESCHEDULING;
        for (int i = 0; i < plan.size(); i++) {
            Bundle b = todo.get(i);
            Node n = plan.get(i);
            Map<String, Map<String, Long>> devices = n.devices.allocate(b.spec);
            n.available.subtract(b.spec);
            b.node = n;
            index.placed(g, n);
            b.devicesTakenFromNode = devices;
            b.devices = NodeDevices.of(devices);
            b.available = b.spec.copy();
        }
        g.state = GroupState.CREATED;
        waiting.remove(g);
        if (rescheduled) {
            cluster.reschedule();
            return true;
        }
        g.creationLatencyMs = (clock.nanoTime() - g.createdNanos) / 1e6;
        g.waitingReason = "";
        g.infeasible = false;
        for (Client w : g.watchers) w.groupReady(g.id);
        index.watchersTold(g);
        cluster.reschedule();
        return true;
    }

    /** Tells the watchers why {@code g} waits: at once when asked, then every 10 s. */
    private void warnWaiting(PlacementGroup g, boolean now) {
        long t = clock.nanoTime();
        if (!now && t - g.lastWarningNanos < WARN_EVERY_NANOS) return;
        g.lastWarningNanos = t;
        List<Resources> specs = g.bundles.stream().map(b -> b.spec).toList();
        List<Node> nodes = cluster.liveNodes();
        String never = Placement.neverFits(g.strategy, specs, g.bundles.stream().map(b -> b.selector).toList(), nodes);
        g.infeasible = never != null;
        g.waitingReason = never != null
                ? "can never be placed on the cluster as it is: " + never + ". It waits until such a node joins."
                : Placement.waitingReason(g.strategy, specs, nodes);
        String message = "Placement group " + (g.name.isEmpty() ? "" : "'" + g.name + "' ") + g.id + " is pending: "
                + g.waitingReason;
        for (Client w : g.watchers) w.groupWaiting(g.id, message);
    }

    /** Called about once a second: repeats waiting reasons every 10 s (a pass over the waiting groups only). */
    public void tick() {
        synchronized (lock) {
            for (PlacementGroup g : waiting) {
                if (g.state == GroupState.PENDING) warnWaiting(g, false);
            }
        }
    }

    public int size() {
        synchronized (lock) {
            return groups.size();
        }
    }

    /** One group, removed or not (placement_group_table(pg)). */
    public GroupSnapshot table(String id) throws RequestException {
        synchronized (lock) {
            return GroupTable.snapshot(require(id), clock.nanoTime());
        }
    }

    /** Every group, removed ones included (placement_group_table()). */
    public List<GroupSnapshot> tableAll() {
        synchronized (lock) {
            return GroupTable.snapshot(groups.values(), true, clock.nanoTime());
        }
    }

    /** Ray's bundle resources of the placed groups, by node id; the caller holds the cluster lock. */
    Map<String, BundleResources> bundleResources() {
        return BundleResources.perNode(groups.values());
    }

    /** Every group that is not removed; the caller holds the cluster lock. */
    List<GroupSnapshot> live() {
        return GroupTable.snapshot(groups.values(), false, clock.nanoTime());
    }
}
