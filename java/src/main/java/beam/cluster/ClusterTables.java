package beam.cluster;

import beam.util.NodeQuestion;
import beam.util.Scheduler;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The cluster's tables (nodes, actors and their calls, placement groups, recent deaths), the
 * one lock that guards them, the clock the domain reads, and every read of them: the views'
 * {@link #snapshot()} and point queries. {@link Cluster}, its only subclass, makes every
 * change; the two are split so that each reads in one sitting, and the reads here are called
 * as Cluster's own.
 *
 * <p>The lock is {@link #lock}, an object of this package's own: nothing outside cluster/
 * can take it. Views read records copied under it and render them without it.
 */
abstract sealed class ClusterTables permits Cluster {
    /** Pending and running calls a snapshot lists at most (the ended ones are bounded by {@link CallLog#MAX_ENDED}). */
    static final int MAX_LISTED_LIVE_CALLS = 10_000;

    /**
     * The cluster's lock: every read or change of the tables holds it. Package-private so
     * that the domain's own classes share it ({@link PlacementGroups} is handed it); it is
     * never exposed, so no view or link can hold the cluster while it waits for anything.
     */
    final Object lock = new Object();
    /** The clock every time read in the domain goes through, and the timers (worker-exit grace) run on. */
    final Scheduler timers;
    final String namespace;
    final LinkedHashMap<String, Node> nodes = new LinkedHashMap<>();
    final PlacementGroups groups;
    /** Package-private so that tests can see that nothing is left behind in it. */
    final ActorIndex index = new ActorIndex();
    final ActorScheduler scheduler;
    final ActorHistory history;
    final CallStats callStats = new CallStats();
    final ActorLifecycle actors;
    /** A call running longer than this is named in ray status, the dashboard and ray doctor. */
    volatile long longCallMillis = Cluster.DEFAULT_LONG_CALL_MILLIS;

    ClusterTables(String namespace, Scheduler timers) {
        this.namespace = namespace;
        this.timers = timers;
        this.groups = new PlacementGroups(this, lock, timers);
        this.scheduler = new ActorScheduler(nodes.values(), groups, index);
        this.history = new ActorHistory(timers);
        this.actors = new ActorLifecycle(scheduler, groups, history, callStats, index, timers);
    }

    public String namespace() {
        return namespace;
    }

    /** The groups' own table, for the domain's tests; everything else goes through the methods below. */
    PlacementGroups groups() {
        return groups;
    }

    // ------------------------------------------------ placement groups (PlacementGroups takes the lock)

    /** Ray's placement_group(): {@code selectors} is its bundle_label_selector, one per bundle, or empty. */
    public void createGroup(Client owner, String id, String name, String strategy, List<Resources> bundles,
                            List<LabelSelector> selectors, boolean detached) throws RequestException {
        groups.create(owner, id, name, strategy, bundles, selectors, detached);
    }

    /** Tells {@code client} when the group is placed or removed (at once if it is already). */
    public void watchGroup(Client client, String id) throws RequestException {
        groups.watch(client, id);
    }

    /** Ray's remove_placement_group(): its actors are killed and its bundles freed. */
    public void removeGroup(String id) throws RequestException {
        groups.remove(id);
    }

    /** One group, removed or not (placement_group_table(pg)). */
    public GroupSnapshot group(String id) throws RequestException {
        return groups.table(id);
    }

    /** Every group, removed ones included (placement_group_table()). */
    public List<GroupSnapshot> allGroups() {
        return groups.tableAll();
    }

    public int groupCount() {
        return groups.size();
    }

    /** About once a second: the waiting groups' reasons are repeated every 10 s. */
    public void tickGroups() {
        groups.tick();
    }

    public CallStats callStats() {
        return callStats;
    }

    // ------------------------------------------------ reads for views (each takes the lock)

    /** The whole cluster as it is now, in one piece: what every view renders. */
    public ClusterSnapshot snapshot() {
        synchronized (lock) {
            List<ActorSnapshot> actorRows = new ArrayList<>(actors.all().size());
            List<CallSnapshot> calls = new ArrayList<>();
            int inFlight = 0;
            for (ActorRecord a : actors.all()) {
                actorRows.add(a.snapshot());
                inFlight += a.inFlight.size();
                if (calls.size() < MAX_LISTED_LIVE_CALLS && (!a.queued.isEmpty() || !a.inFlight.isEmpty())) {
                    a.liveCalls(calls, MAX_LISTED_LIVE_CALLS);
                }
            }
            calls.addAll(actors.calls.ended());
            return new ClusterSnapshot(namespace, nodeSnapshots(), actorRows, groups.live(), history.deaths(),
                    history.deathsByClass(), inFlight, calls, longCallMillis);
        }
    }

    /** The nodes as {@link #nodeSnapshots} and Ray's bundle resources of the placed groups, taken together. */
    public Cluster.ResourceView resourceView() {
        synchronized (lock) {
            return new Cluster.ResourceView(nodeSnapshots(), groups.bundleResources());
        }
    }

    /** Every node that ever joined, in join order, dead ones included, as it is now. */
    public List<NodeSnapshot> nodeSnapshots() {
        synchronized (lock) {
            List<NodeSnapshot> out = new ArrayList<>(nodes.size());
            for (Node n : nodes.values()) out.add(n.snapshot());
            return out;
        }
    }

    /** The live nodes, in join order, as they are now (their facts and telemetry with them). */
    public List<NodeSnapshot> liveNodeSnapshots() {
        synchronized (lock) {
            return nodes.values().stream().filter(n -> n.alive).map(Node::snapshot).toList();
        }
    }

    /** The node with this id as it is now, dead or alive; null when none ever joined. */
    public NodeSnapshot node(String nodeId) {
        synchronized (lock) {
            Node n = nodes.get(nodeId);
            return n == null ? null : n.snapshot();
        }
    }

    /** The actor as it is now: one lookup in the table, else among the recent deaths; null when unknown. */
    public ActorSnapshot actor(String actorId) {
        synchronized (lock) {
            ActorRecord a = index.byId(actorId);
            return a != null ? a.snapshot() : history.death(actorId);
        }
    }

    /** The ids of the nodes where an actor in the table has process {@code pid} (a pass, no copy). */
    public Set<String> nodesRunningPid(long pid) {
        synchronized (lock) {
            Set<String> found = new LinkedHashSet<>();
            for (ActorRecord a : actors.all()) if (a.node != null && a.pid == pid) found.add(a.node.id);
            return found;
        }
    }

    public List<ActorRecord> liveActors() {
        synchronized (lock) {
            return actors.all().stream().filter(a -> a.state != ActorRecord.State.DEAD).toList();
        }
    }

    public int actorCount() {
        synchronized (lock) {
            return actors.all().size();
        }
    }

    public int tombstoneCount() {
        synchronized (lock) {
            return actors.tombstoneCount();
        }
    }

    /**
     * Asks the live node {@code nodeId} a question over its link (the head's own in process); the
     * lock is held only to find the node. Fails, naming the node, when it is gone.
     */
    public <A extends NodeQuestion.Answer> CompletableFuture<A> ask(String nodeId, NodeQuestion<A> question) {
        NodeControl link;
        synchronized (lock) {
            Node node = nodes.get(nodeId);
            if (node == null || !node.alive) {
                return CompletableFuture.failedFuture(new IllegalStateException(node == null ? "no node " + nodeId
                        : "node " + node.hostname + " (" + node.ip + ") is gone"));
            }
            link = node.link;
        }
        return link.ask(question);
    }

    // ------------------------------------------------ for this package: the caller holds the lock

    List<Node> liveNodes() {
        return nodes.values().stream().filter(n -> n.alive).toList();
    }

    /** Every node that ever joined, in join order, dead ones included (a placement plan skips the dead itself). */
    Collection<Node> nodes() {
        return Collections.unmodifiableCollection(nodes.values());
    }

    /** Every actor in the table: live ones, and dead ones whose process is not gone yet. */
    Collection<ActorRecord> actors() {
        return Collections.unmodifiableCollection(actors.all());
    }

    /** The group's actors still in the table: a removal costs its own actors, not every actor. */
    List<ActorRecord> actorsIn(PlacementGroup group) {
        return actors.in(group);
    }

    /** Kills {@code actor} for {@code cause}: fails its calls now, frees resources once the process is gone. */
    void killActor(ActorRecord actor, DeathCause cause) {
        actors.kill(actor, cause);
    }

    /** Tries pending groups, then pending actors; called whenever resources are freed or added. */
    void reschedule() {
        scheduler.reschedule();
    }
}
