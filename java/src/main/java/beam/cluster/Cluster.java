package beam.cluster;

import beam.util.Scheduler;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Set;

/**
 * The cluster's state: nodes, actors and calls to them, behind one lock. Actors live in
 * {@link ActorLifecycle}, their placement in {@link ActorScheduler}, placement groups in
 * {@link PlacementGroups}; all of them share this object's lock.
 *
 * <p>Threads: every public method holds this object's lock while it reads or changes state;
 * process work goes to {@link NodeLink}, which hands it to a virtual thread. Telling a
 * {@link Client} may write to the socket on the calling thread, so the two hot paths tell
 * after the lock is released: {@link #call} to a live actor (and a call's failure) and
 * {@link #onResult}. Otherwise a driver's thread writing a broadcast to its actors would hold
 * the lock while the workers' threads wait on it to hand back their results. Per caller,
 * calls still reach an actor in order: one thread reads a caller's frames, and calls queued
 * while the actor started are sent (written, or queued on the worker's connection in order)
 * under the lock by {@link #onActorReady}, before any later call can see the actor alive. A
 * call's entry in flight is made under the lock before its frame goes out, so an actor's
 * death fails it whether or not it was written.
 *
 * <p>Views read {@link #snapshot()}: records copied under the lock in one piece, rendered
 * without it. The few readers that walk {@link #nodes()} and {@link #actors()} themselves
 * (ray doctor, version checks) hold this object's lock while they do.
 */
public final class Cluster {
    static final long WORKER_EXIT_GRACE_MILLIS = 2_000;
    static final int MAX_TOMBSTONES = 10_000;
    /** Pending and running calls a snapshot lists at most (the ended ones are bounded by {@link CallLog#MAX_ENDED}). */
    static final int MAX_LISTED_LIVE_CALLS = 10_000;
    public static final long DEFAULT_LONG_CALL_MILLIS = 60_000;

    /** A call running longer than this is named in ray status, the dashboard and ray doctor. */
    private volatile long longCallMillis = DEFAULT_LONG_CALL_MILLIS;

    private final String namespace;
    private final LinkedHashMap<String, Node> nodes = new LinkedHashMap<>();
    final PlacementGroups groups = new PlacementGroups(this);
    /** Package-private so that tests can see that nothing is left behind in it. */
    final ActorIndex index = new ActorIndex();
    private final ActorScheduler scheduler = new ActorScheduler(nodes.values(), groups, index);
    private final ActorHistory history = new ActorHistory();
    private final CallStats callStats = new CallStats();
    private final ActorLifecycle actors = new ActorLifecycle(scheduler, groups, history, callStats, index);

    public Cluster(String namespace) {
        this.namespace = namespace;
    }

    public String namespace() {
        return namespace;
    }

    /** Sets the age past which a running call counts as long (ray start --long-call-seconds). */
    public void longCallMillis(long millis) {
        if (millis < 1) throw new IllegalArgumentException("the long-call threshold must be at least 1 ms, not " + millis);
        longCallMillis = millis;
    }

    public PlacementGroups groups() {
        return groups;
    }

    public CallStats callStats() {
        return callStats;
    }

    /**
     * A node joins: ALIVE from here until it leaves or is lost ({@link #onNodeLost}), then
     * DEAD for good; a node that comes back joins as a new node with a new id.
     */
    public synchronized void addNode(Node node) {
        nodes.put(node.id, node);
        scheduler.nodeAdded(node);
        reschedule();
        scheduler.membershipChanged();
    }

    synchronized List<Node> liveNodes() {
        return nodes.values().stream().filter(n -> n.alive).toList();
    }

    /** Every node, dead ones too, in join order (a placement plan skips the dead itself). */
    Collection<Node> allNodes() {
        return nodes.values();
    }

    // ---------------------------------------------------------------- actors

    public synchronized void createActor(Client owner, String actorId, String className, String name,
                                         String namespace, ActorOptions options, byte[] payload)
            throws RequestException {
        actors.create(owner, actorId, className, name, namespace, options, payload);
    }

    /**
     * A call to {@code actorId}; {@code frame} is the caller's, forwarded as it is when it is a
     * plain call; {@code label} is the short string the caller named it by (its first argument), or null.
     */
    public void call(Client caller, String actorId, String oid, String method, String label, Forwarded frame) {
        Runnable tell;
        synchronized (this) {
            tell = actors.route(caller, actorId, oid, method, label, frame);
        }
        if (tell != null) tell.run();
    }

    public synchronized void kill(String actorId) throws RequestException {
        actors.kill(actorId);
    }

    /** Handle counting (ActorHolders): a handle pickled, first held by {@code client}, or no more held. */
    public synchronized void lendHandle(String actorId) {
        actors.lend(actorId);
    }

    public synchronized void borrowHandle(Client client, String actorId, boolean lent) {
        actors.borrow(client, actorId, lent);
    }

    public synchronized void releaseHandle(Client client, String actorId) {
        actors.release(client, actorId);
    }

    /** The live actor named {@code name} in {@code namespace} (ray.get_actor). */
    public synchronized ActorRecord actorByName(String name, String namespace) throws RequestException {
        return actors.byName(name, namespace);
    }

    /** Kills {@code actor} for {@code cause}: fails its calls now, frees resources once the process is gone. */
    void killActor(ActorRecord actor, DeathCause cause) {
        actors.kill(actor, cause);
    }

    /** Tries pending groups, then pending actors; called whenever resources are freed or added. */
    void reschedule() {
        scheduler.reschedule();
    }

    // ------------------------------------------------ callbacks from workers and node agents

    /** A worker connected for {@code actorId}; returns its record so the caller can send actor_init. */
    public synchronized ActorRecord onWorkerHello(String actorId, Client worker) throws RequestException {
        return actors.onWorkerHello(actorId, worker);
    }

    public synchronized void onActorReady(String actorId) {
        actors.onReady(actorId);
    }

    public synchronized void onActorFailed(String actorId, String traceback) {
        actors.onFailed(actorId, traceback);
    }

    /** A worker's result; {@code ok}: the method returned (status "ok"), else it raised. */
    public void onResult(String actorId, String oid, boolean ok, Forwarded result) {
        Client caller;
        synchronized (this) {
            caller = actors.takeCaller(actorId, oid, ok);
        }
        if (caller != null) caller.callResult(result);
    }

    public synchronized void onActorProcessStarted(String actorId, long pid) {
        actors.onProcessStarted(actorId, pid);
    }

    public synchronized void onActorStartFailed(String actorId, String detail) {
        actors.onStartFailed(actorId, detail);
    }

    public synchronized void onActorExited(String actorId, int exitCode, List<String> stderrTail, long oomKills) {
        actors.onExited(actorId, exitCode, stderrTail, oomKills);
    }

    /**
     * An actor's worker connection closed. Its process normally exits right after and
     * {@link #onActorExited} reports the real exit code; if it lingers, kill it.
     */
    public void onWorkerDisconnected(String actorId) {
        ActorRecord actor;
        synchronized (this) {
            actor = actors.running(actorId);
            if (actor == null) return;
        }
        Scheduler.system().after(WORKER_EXIT_GRACE_MILLIS, () -> {
            synchronized (this) {
                if (!actor.processGone) actor.node.link.killActor(actor);
            }
        });
    }

    /**
     * A node's Python-side versions arrived (shortly after its join): merged into its facts.
     * Returns the node, or null if it is gone or sent no versions.
     */
    public synchronized Node onNodeVersions(String nodeId, JsonNode versions) {
        Node node = nodes.get(nodeId);
        if (node == null || !(versions instanceof ObjectNode v)) return null;
        ObjectNode update = JsonNodeFactory.instance.objectNode();
        update.set("versions", v);
        node.facts = node.facts.merge(update);
        return node;
    }

    /**
     * Facts a node reported after its join (its HTTP ports, the head's version warnings about
     * it): merged into what it said at the join; its {@code telemetry}, when it sends one,
     * replaces its last (a malformed one is shown as the node's problem).
     */
    public synchronized void onNodeFacts(String nodeId, ObjectNode facts) {
        Node node = nodes.get(nodeId);
        if (node == null) return;
        if (facts.has("telemetry")) {
            // the node's accelerator sample rides the facts path but is kept apart: it changes every few seconds
            ObjectNode rest = facts.deepCopy();
            try {
                node.telemetry = DeviceTelemetry.fromJson(rest.remove("telemetry"));
            } catch (IllegalArgumentException e) {
                node.telemetry = DeviceTelemetry.NONE.failed("the node sent a sample the head cannot read: "
                        + e.getMessage(), false);
            }
            facts = rest;
        }
        if (!facts.isEmpty()) node.facts = node.facts.merge(facts);
    }

    /** The head node's facts, the ones every joined node's versions are compared with. */
    public synchronized HostFacts headFacts() {
        for (Node n : nodes.values()) if (n.head) return n.facts;
        return HostFacts.none();
    }

    /**
     * A batch of an actor's output from its node: its owner is sent it (when it asked for its
     * actors' output). Nothing is kept here: the node keeps the files ({@code ray logs}).
     */
    public synchronized void onActorLog(String actorId, Forwarded output) {
        actors.onLog(actorId, output);
    }

    /**
     * A node died or left: its resources leave the cluster, its actors are dead (every
     * pending call fails now), and placement group bundles that lived on it are re-placed
     * when capacity allows. A node that comes back joins as a new node.
     */
    public synchronized void onNodeLost(String nodeId, String reason) {
        Node node = nodes.get(nodeId);
        if (node == null || !node.alive) return;
        node.alive = false;
        node.deathReason = reason;
        actors.onNodeLost(node, reason);
        groups.onNodeLost(node);
        reschedule();
        scheduler.membershipChanged();
    }

    /** A driver or worker connection closed: fate-share its actors and groups. */
    public void onClientGone(Client client) {
        onClientsGone(List.of(client));
    }

    /**
     * Clients gone together (every client of a lost node): fate-share the actors and groups
     * they own and drop the calls they wait for. Each costs its own actors and groups, found
     * through the indexes ({@link ActorIndex}, {@link GroupIndex}), not a pass over the
     * tables: every killed actor's worker connection comes here.
     */
    public synchronized void onClientsGone(Collection<? extends Client> clients) {
        if (clients.isEmpty()) return;
        Set<Client> gone = Collections.newSetFromMap(new IdentityHashMap<>());
        gone.addAll(clients);
        actors.onClientsGone(gone);
        groups.onOwnersGone(gone);
        actors.forgetCallers(gone);
    }

    /** Kills every actor (daemon shutdown). */
    public synchronized void stopAll() {
        actors.killAll(new DeathCause.DaemonStopping());
    }

    /** The group's actors still in the table: a removal costs its own actors, not every actor. */
    synchronized List<ActorRecord> actorsIn(PlacementGroup group) {
        return actors.in(group);
    }

    public synchronized List<ActorRecord> liveActors() {
        return actors.all().stream().filter(a -> a.state != ActorRecord.State.DEAD).toList();
    }

    // ------------------------------------------------ reads for views

    /** The whole cluster as it is now, in one piece: what every view renders. */
    public synchronized ClusterSnapshot snapshot() {
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
        calls.addAll(actors.endedCalls());
        return new ClusterSnapshot(namespace, nodeSnapshots(), actorRows, groups.live(), history.deaths(),
                history.deathsByClass(), inFlight, calls, longCallMillis);
    }

    /** The nodes as {@link #nodeSnapshots} and Ray's bundle resources of the placed groups, taken together. */
    public synchronized ResourceView resourceView() {
        return new ResourceView(nodeSnapshots(), groups.bundleResources());
    }

    /** The nodes and the bundle resources at one moment (the cluster_state view). */
    public record ResourceView(List<NodeSnapshot> nodes, BundleResources bundles) {
    }

    /** Every node that ever joined, in join order, dead ones included, as it is now. */
    public synchronized List<NodeSnapshot> nodeSnapshots() {
        List<NodeSnapshot> out = new ArrayList<>(nodes.size());
        for (Node n : nodes.values()) out.add(n.snapshot());
        return out;
    }

    // ------------------------------------------------ live reads for views (hold this object's lock)

    /** Every node that ever joined, in join order, dead ones included. */
    public Collection<Node> nodes() {
        return Collections.unmodifiableCollection(nodes.values());
    }

    /** Every actor in the table: live ones, and dead ones whose process is not gone yet. */
    public Collection<ActorRecord> actors() {
        return Collections.unmodifiableCollection(actors.all());
    }

    public synchronized int actorCount() {
        return actors.all().size();
    }

    public synchronized int tombstoneCount() {
        return actors.tombstoneCount();
    }
}
