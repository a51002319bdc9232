package beam.cluster;

import beam.util.NodeQuestion;
import beam.util.Scheduler;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The cluster's state: nodes, actors and calls to them, behind one lock. Actors live in
 * {@link ActorLifecycle}, their placement in {@link ActorScheduler}, placement groups in
 * {@link PlacementGroups}; all of them share this object's lock.
 *
 * <p>Threads: every public method holds this object's lock while it reads or changes state;
 * process work goes to {@link NodeControl}, which hands it to a virtual thread. Telling a
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
 * <p>Views read {@link #snapshot()} or a point query ({@link #actor}, {@link #node},
 * {@link #liveNodeSnapshots}): records copied under the lock, rendered without it; they ask a
 * node through {@link #ask} and write back only through methods here ({@link #onVersionWarnings}).
 * No view takes this object's lock; {@link PlacementGroups} still shares it (its own methods
 * synchronize on this object), which is why the lock is not yet a private one.
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

    /** The worker-exit timers run here: the system's, or a test's manual one. */
    private final Scheduler timers;

    public Cluster(String namespace) {
        this(namespace, Scheduler.system());
    }

    public Cluster(String namespace, Scheduler timers) {
        this.namespace = namespace;
        this.timers = timers;
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

    /** Creates an actor; with {@code getIfExists}, the live actor holding its name instead (atomic: one lock). */
    public synchronized ActorRecord createActor(Client owner, String actorId, String className, String name,
                                                String namespace, ActorOptions options, byte[] payload,
                                                boolean getIfExists) throws RequestException {
        return actors.create(owner, actorId, className, name, namespace, options, payload, getIfExists);
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

    public synchronized void onActorReady(String actorId, String reprName) {
        actors.onReady(actorId, reprName);
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

    /**
     * An actor's process exited. Its last results may still be on their way on the worker's
     * connection, which the node's exit report overtakes; the exit applies once that
     * connection has closed, or after {@link #WORKER_EXIT_GRACE_MILLIS} if it stays open (a
     * child process that inherited it).
     */
    public void onActorExited(String actorId, int exitCode, List<String> stderrTail, long oomKills) {
        boolean pending;
        synchronized (this) {
            pending = actors.onExited(actorId, new WorkerExit(exitCode, stderrTail, oomKills));
        }
        if (pending) {
            timers.after(WORKER_EXIT_GRACE_MILLIS, () -> {
                synchronized (this) {
                    actors.applyPendingExit(actorId);
                }
            });
        }
    }

    /**
     * An actor's worker connection closed, after every frame it sent was handled: an exit
     * reported meanwhile applies now. Its process normally exits right after and
     * {@link #onActorExited} reports the real exit code; if it lingers, kill it.
     */
    public void onWorkerDisconnected(String actorId) {
        ActorRecord actor;
        synchronized (this) {
            if (!actors.onWorkerClosed(actorId)) return;
            actor = actors.running(actorId);
            if (actor == null) return;
        }
        timers.after(WORKER_EXIT_GRACE_MILLIS, () -> {
            synchronized (this) {
                if (!actor.processGone) actor.node.link.killActor(actor);
            }
        });
    }

    /**
     * A node's Python-side versions arrived (shortly after its join): merged into its facts.
     * Returns the node as it is now, or null if it is gone or sent no versions.
     */
    public synchronized NodeSnapshot onNodeVersions(String nodeId, JsonNode versions) {
        Node node = nodes.get(nodeId);
        if (node == null || !(versions instanceof ObjectNode v)) return null;
        node.report(JsonNodeFactory.instance.objectNode().set("versions", v));
        return node.snapshot();
    }

    /** The head's warnings about how the node's versions differ from its own (views/VersionCheck); they replace the last. */
    public synchronized void onVersionWarnings(String nodeId, List<String> warnings) {
        Node node = nodes.get(nodeId);
        if (node != null) node.report(JsonNodeFactory.instance.objectNode().set("version_warnings",
                JsonNodeFactory.instance.arrayNode().addAll(warnings.stream().map(JsonNodeFactory.instance::textNode).toList())));
    }

    /** Facts a node reported after its join (its HTTP ports, its accelerators' sample): see {@link Node#report}. */
    public synchronized void onNodeFacts(String nodeId, ObjectNode facts) {
        Node node = nodes.get(nodeId);
        if (node != null) node.report(facts);
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

    /** The nodes and the bundle resources on each (by node id) at one moment (the cluster_state view). */
    public record ResourceView(List<NodeSnapshot> nodes, Map<String, BundleResources> bundlesByNode) {
    }

    /** Every node that ever joined, in join order, dead ones included, as it is now. */
    public synchronized List<NodeSnapshot> nodeSnapshots() {
        List<NodeSnapshot> out = new ArrayList<>(nodes.size());
        for (Node n : nodes.values()) out.add(n.snapshot());
        return out;
    }

    /** The live nodes, in join order, as they are now (their facts and telemetry with them). */
    public synchronized List<NodeSnapshot> liveNodeSnapshots() {
        return nodes.values().stream().filter(n -> n.alive).map(Node::snapshot).toList();
    }

    /** The node with this id as it is now, dead or alive; null when none ever joined. */
    public synchronized NodeSnapshot node(String nodeId) {
        Node n = nodes.get(nodeId);
        return n == null ? null : n.snapshot();
    }

    /** The actor as it is now: one lookup in the table, else among the recent deaths; null when unknown. */
    public synchronized ActorSnapshot actor(String actorId) {
        ActorRecord a = index.byId(actorId);
        return a != null ? a.snapshot() : history.death(actorId);
    }

    /** The ids of the nodes where an actor in the table has process {@code pid} (a pass, no copy). */
    public synchronized Set<String> nodesRunningPid(long pid) {
        Set<String> found = new LinkedHashSet<>();
        for (ActorRecord a : actors.all()) if (a.node != null && a.pid == pid) found.add(a.node.id);
        return found;
    }

    /**
     * Asks the live node {@code nodeId} a question over its link (the head's own in process); the
     * lock is held only to find the node. Fails, naming the node, when it is gone.
     */
    public <A extends NodeQuestion.Answer> CompletableFuture<A> ask(String nodeId, NodeQuestion<A> question) {
        NodeControl link;
        synchronized (this) {
            Node node = nodes.get(nodeId);
            if (node == null || !node.alive) {
                return CompletableFuture.failedFuture(new IllegalStateException(node == null ? "no node " + nodeId
                        : "node " + node.hostname + " (" + node.ip + ") is gone"));
            }
            link = node.link;
        }
        return link.ask(question);
    }

    // ------------------------------------------------ live reads for this package (hold this object's lock)

    /** Every node that ever joined, in join order, dead ones included. */
    Collection<Node> nodes() {
        return Collections.unmodifiableCollection(nodes.values());
    }

    /** Every actor in the table: live ones, and dead ones whose process is not gone yet. */
    Collection<ActorRecord> actors() {
        return Collections.unmodifiableCollection(actors.all());
    }

    public synchronized int actorCount() {
        return actors.all().size();
    }

    public synchronized int tombstoneCount() {
        return actors.tombstoneCount();
    }
}
