package beam.cluster;

import beam.codec.Frame;
import beam.protocol.Frames;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Logger;

/**
 * The cluster's state: nodes, actors and calls to them. Placement groups live in
 * {@link PlacementGroups}, which shares this object's lock.
 *
 * <p>Threads: every public method holds this object's lock while it reads or changes state;
 * process work goes to {@link NodeLink}, which hands it to a virtual thread. A {@link
 * Client#push} may write to the socket on the calling thread, so the two hot paths push
 * after the lock is released: {@link #call} to a live actor (and a call's failure) and
 * {@link #onResult}. Otherwise a driver's thread writing a broadcast to its actors would hold
 * the lock while the workers' threads wait on it to hand back their results. Per caller,
 * calls still reach an actor in order: one thread reads a caller's frames, and calls queued
 * while the actor started are sent (written, or queued on the worker's connection in order)
 * under the lock by {@link #onActorReady}, before any later call can see the actor alive. A call's entry in {@code inFlight} is made under the
 * lock before its frame goes out, so an actor's death fails it whether or not it was written.
 */
public final class Cluster {
    private static final Logger LOG = Logger.getLogger(Cluster.class.getName());

    static final long WORKER_EXIT_GRACE_MILLIS = 2_000;
    static final int MAX_TOMBSTONES = 10_000;

    private final String namespace;
    private final LinkedHashMap<String, Node> nodes = new LinkedHashMap<>();
    /** Nodes by their {@code node:<ip>} resources, in join order (what {@link #candidates} reads). */
    private final Map<String, List<Node>> nodesWith = new HashMap<>();
    /** Actors in the table by owner, so that a client leaving costs its own actors, not every actor. */
    private final Map<Client, Set<ActorRecord>> byOwner = new java.util.IdentityHashMap<>();
    private final LinkedHashMap<String, ActorRecord> actors = new LinkedHashMap<>();
    /** The PENDING actors, in creation order: what a reschedule tries, without walking every actor. */
    private final java.util.LinkedHashSet<ActorRecord> pendingActors = new java.util.LinkedHashSet<>();
    private final Map<String, ActorRecord> namedActors = new HashMap<>();
    /**
     * Dead actors whose process is gone, kept only as their death message so late calls
     * still get the real cause; bounded, so the daemon's memory stays flat however many
     * actors come and go.
     */
    private final LinkedHashMap<String, String> tombstones = new LinkedHashMap<>(256, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > MAX_TOMBSTONES;
        }
    };
    final PlacementGroups groups = new PlacementGroups(this);
    private final ActorHistory history = new ActorHistory();
    private final CallStats callStats = new CallStats();

    public Cluster(String namespace) {
        this.namespace = namespace;
    }

    public String namespace() {
        return namespace;
    }

    public PlacementGroups groups() {
        return groups;
    }

    public CallStats callStats() {
        return callStats;
    }

    public synchronized void addNode(Node node) {
        nodes.put(node.id, node);
        for (String name : node.total.asMap().keySet()) {
            if (name.startsWith("node:")) nodesWith.computeIfAbsent(name, k -> new ArrayList<>()).add(node);
        }
        reschedule();
    }

    synchronized List<Node> liveNodes() {
        return nodes.values().stream().filter(n -> n.alive).toList();
    }

    Collection<Node> allNodes() {
        return nodes.values();
    }

    // ---------------------------------------------------------------- actors

    public synchronized void createActor(Client owner, String actorId, String className, String name,
                                         String namespace, ActorOptions options, byte[] payload)
            throws RequestException {
        if (actors.containsKey(actorId)) throw RequestException.value("actor id " + actorId + " is already in use");
        if (namespace == null) namespace = owner.namespace();
        String key = namespace + "/" + name;
        if (name != null && namedActors.containsKey(key)) {
            throw RequestException.value("The name " + name + " (namespace=" + namespace
                    + ") is already taken. Please use a different name or get the existing actor using "
                    + "ray.get_actor('" + name + "', namespace='" + namespace + "')");
        }
        PlacementGroup group = null;
        if (options.groupId() != null) {
            group = groups.require(options.groupId());
            groups.checkActorFits(group, options);
        }
        ActorRecord actor = new ActorRecord(actorId, className, name, namespace, owner, options, payload);
        actor.group = group;
        if (group != null) group.actors.add(actor);
        actors.put(actorId, actor);
        byOwner.computeIfAbsent(owner, o -> new java.util.LinkedHashSet<>()).add(actor);
        pendingActors.add(actor);
        if (name != null) namedActors.put(key, actor);
        if (!tryPlace(actor) && group == null) {
            String never = neverFitsAnyNode(options.request());
            if (never != null) {
                owner.push(warning("Actor " + className + " (" + actorId + ") requests " + options.request()
                        + ", which " + never + ". It stays pending until a node that can hold it joins."));
            }
        }
    }

    /** A call to {@code actorId}; {@code frame} is the caller's, forwarded as it is when it is a plain call. */
    public void call(Client caller, String actorId, String oid, String method, Frame frame) {
        Push push;
        synchronized (this) {
            push = route(caller, actorId, oid, method, frame);
        }
        if (push != null) push.to().push(push.frame());
    }

    /** A frame to push once the lock is released. */
    private record Push(Client to, Frame frame) {
    }

    /** Under the lock: the call's frame for a live actor, its failure for the caller, or null once queued. */
    private Push route(Client caller, String actorId, String oid, String method, Frame frame) {
        callStats.call();
        ActorRecord actor = actors.get(actorId);
        if (actor == null || actor.state == ActorRecord.State.DEAD) callStats.failed();
        if (actor == null && tombstones.containsKey(actorId)) {
            return new Push(caller, Frames.failedResult(oid, "actor_died", "ActorDiedError", tombstones.get(actorId)));
        }
        if (actor == null) {
            return new Push(caller, Frames.failedResult(oid, "error", "ValueError", "No actor with id " + actorId
                    + " exists in this cluster (was the handle made in another cluster or session?)"));
        }
        return switch (actor.state) {
            case DEAD -> new Push(caller, Frames.failedResult(oid, "actor_died", "ActorDiedError", actor.deathMessage));
            case PENDING, STARTING -> {
                actor.queued.add(new ActorRecord.Call(oid, method, frame, caller));
                yield null;
            }
            case ALIVE -> new Push(actor.worker, inFlight(actor, new ActorRecord.Call(oid, method, frame, caller)));
        };
    }

    /** Under the lock: records the call as in flight; returns the frame the worker gets. */
    private static Frame inFlight(ActorRecord actor, ActorRecord.Call call) {
        actor.inFlight.put(call.oid(), call.caller());
        if (call.frame().relay() != null) return call.frame(); // a plain call: the worker reads the same fields
        ObjectNode h = Frames.header("call");
        h.put("oid", call.oid());
        h.put("method", call.method());
        return new Frame(h, call.frame().payload());
    }

    public synchronized void kill(String actorId) throws RequestException {
        ActorRecord actor = actors.get(actorId);
        if (actor == null && tombstones.containsKey(actorId)) return;
        if (actor == null) throw RequestException.value("No actor with id " + actorId + " exists");
        killActor(actor, new DeathCause.Killed());
    }

    public synchronized ObjectNode actorByName(String name, String namespace) throws RequestException {
        ActorRecord actor = namedActors.get(namespace + "/" + name);
        if (actor == null) {
            throw RequestException.value("Failed to look up actor with name '" + name + "'. This could because 1. You "
                    + "are trying to look up a named actor you didn't create. 2. The named actor died. 3. You did not use "
                    + "a namespace matching the namespace of the actor.");
        }
        ObjectNode h = Frames.header("actor");
        h.put("actor_id", actor.id);
        h.put("class_name", actor.className);
        h.put("max_concurrency", actor.options.maxConcurrency());
        h.put("is_async", actor.options.isAsync());
        var methods = h.putArray("methods");
        actor.options.methods().forEach(methods::add);
        return h;
    }

    /** Kills {@code actor} for {@code cause}: fails its calls now, frees resources once the process is gone. */
    void killActor(ActorRecord actor, DeathCause cause) {
        if (actor.state == ActorRecord.State.DEAD) return;
        boolean running = actor.state == ActorRecord.State.STARTING || actor.state == ActorRecord.State.ALIVE;
        markDead(actor, cause);
        if (running && !actor.processGone) actor.node.link.killActor(actor);
        else release(actor);
    }

    private void markDead(ActorRecord actor, DeathCause cause) {
        actor.state = ActorRecord.State.DEAD;
        pendingActors.remove(actor);
        actor.deathMessage = deathMessage(actor, cause);
        if (actor.name != null) namedActors.remove(actor.namespace + "/" + actor.name, actor);
        history.died(actor, ClusterViews.actor(actor));
        for (ActorRecord.Call c : actor.queued) {
            callStats.failed();
            c.caller().push(Frames.failedResult(c.oid(), "actor_died", "ActorDiedError", actor.deathMessage));
        }
        actor.queued.clear();
        actor.inFlight.forEach((oid, caller) -> {
            callStats.failed();
            caller.push(Frames.failedResult(oid, "actor_died", "ActorDiedError", actor.deathMessage));
        });
        actor.inFlight.clear();
        LOG.info("actor " + actor.className + " " + actor.id + " died: " + DeathCause.describe(cause).lines().findFirst().orElse(""));
    }

    private String deathMessage(ActorRecord actor, DeathCause cause) {
        return "The actor died unexpectedly before finishing this task.\n"
                + "\tclass_name: " + actor.className + "\n"
                + "\tactor_id: " + actor.id + "\n"
                + "\tpid: " + (actor.pid > 0 ? actor.pid : "(not started)") + "\n"
                + "\tnamespace: " + actor.namespace + "\n"
                + "\tip: " + (actor.node != null ? actor.node.ip : "(not placed)") + "\n"
                + "The actor is dead because " + DeathCause.describe(cause);
    }

    /** Returns held resources to the bundle or node, then retires the record. Idempotent. */
    private void release(ActorRecord actor) {
        if (actor.held == null) {
            retire(actor);
            return;
        }
        if (actor.bundle != null) {
            actor.bundle.available.add(actor.held);
            actor.bundle.devices.release(actor.devicesHeld);
        } else if (actor.node != null) {
            actor.node.available.add(actor.held);
            actor.node.devices.release(actor.devicesHeld);
        }
        actor.held = null;
        retire(actor);
        reschedule();
    }

    /** A dead actor with nothing held any more leaves the table; its death message stays. */
    private void retire(ActorRecord actor) {
        if (actor.state != ActorRecord.State.DEAD || actor.held != null) return;
        if (actor.state == ActorRecord.State.DEAD && !actor.processGone && actor.pid > 0) return;
        actors.remove(actor.id);
        if (actor.group != null) actor.group.actors.remove(actor);
        Set<ActorRecord> owned = byOwner.get(actor.owner);
        if (owned != null && owned.remove(actor) && owned.isEmpty()) byOwner.remove(actor.owner);
        tombstones.put(actor.id, actor.deathMessage);
    }

    /** Tries pending groups, then pending actors; called whenever resources are freed or added. */
    void reschedule() {
        groups.retryPending();
        for (ActorRecord a : new ArrayList<>(pendingActors)) {
            if (a.state == ActorRecord.State.PENDING) tryPlace(a);
        }
    }

    private boolean tryPlace(ActorRecord actor) {
        Resources request = actor.options.request();
        if (actor.group != null) {
            if (actor.group.state != PlacementGroup.State.CREATED) return false;
            int index = actor.options.bundleIndex();
            List<Bundle> candidates = index >= 0 ? List.of(actor.group.bundles.get(index)) : actor.group.bundles;
            for (Bundle b : candidates) {
                if (!b.available.fits(request)) continue;
                Map<String, Map<String, Long>> devices = b.devices.allocate(request);
                if (devices == null) continue;
                b.available.subtract(request);
                actor.bundle = b;
                start(actor, b.node, devices);
                return true;
            }
            return false;
        }
        for (Node n : candidates(request)) {
            if (!n.alive || !n.available.fits(request)) continue;
            Map<String, Map<String, Long>> devices = n.devices.allocate(request);
            if (devices == null) continue;
            n.available.subtract(request);
            start(actor, n, devices);
            return true;
        }
        return false;
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
        return nodes.values();
    }

    private void start(ActorRecord actor, Node node, Map<String, Map<String, Long>> devices) {
        actor.node = node;
        actor.held = actor.options.request().copy();
        actor.devicesHeld = devices;
        actor.deviceIds = NodeDevices.ids(devices);
        actor.state = ActorRecord.State.STARTING;
        pendingActors.remove(actor);
        node.link.startActor(actor, actor.deviceIds);
    }

    private String neverFitsAnyNode(Resources request) {
        for (Node n : nodes.values()) if (n.alive && Placement.fitsTotal(n, request)) return null;
        return "no node in the cluster has (" + Placement.freeSummary(liveNodes()) + " free now)";
    }

    static Frame warning(String message) {
        ObjectNode h = Frames.header("warning");
        h.put("message", message);
        return new Frame(h);
    }

    // ------------------------------------------------ callbacks from workers and node agents

    /** A worker connected for {@code actorId}; returns its record so the caller can send actor_init. */
    public synchronized ActorRecord onWorkerHello(String actorId, Client worker) throws RequestException {
        ActorRecord actor = actors.get(actorId);
        if (actor == null || actor.state != ActorRecord.State.STARTING || actor.worker != null) {
            throw RequestException.value("no actor " + actorId + " is waiting for a worker");
        }
        actor.worker = worker;
        return actor;
    }

    public synchronized void onActorReady(String actorId) {
        ActorRecord actor = actors.get(actorId);
        if (actor == null || actor.state != ActorRecord.State.STARTING) return;
        actor.state = ActorRecord.State.ALIVE;
        while (!actor.queued.isEmpty()) actor.worker.push(inFlight(actor, actor.queued.poll())); // in order, see the class doc
    }

    public synchronized void onActorFailed(String actorId, String traceback) {
        ActorRecord actor = actors.get(actorId);
        if (actor != null) killActor(actor, new DeathCause.ConstructorFailed(traceback));
    }

    public void onResult(String actorId, String oid, Frame result) {
        Client caller;
        synchronized (this) {
            ActorRecord actor = actors.get(actorId);
            if (actor == null) return;
            caller = actor.inFlight.remove(oid);
        }
        if (caller != null) caller.push(result);
    }

    public synchronized void onActorProcessStarted(String actorId, long pid) {
        ActorRecord actor = actors.get(actorId);
        if (actor == null) return;
        actor.pid = pid;
        // Killed while its process was being launched: finish the job now.
        if (actor.state == ActorRecord.State.DEAD) actor.node.link.killActor(actor);
    }

    public synchronized void onActorStartFailed(String actorId, String detail) {
        ActorRecord actor = actors.get(actorId);
        if (actor == null) return;
        actor.processGone = true;
        killActor(actor, new DeathCause.StartFailed(detail));
        release(actor);
    }

    public synchronized void onActorExited(String actorId, int exitCode, List<String> stderrTail, long oomKills) {
        ActorRecord actor = actors.get(actorId);
        if (actor == null) return;
        actor.processGone = true;
        if (actor.state != ActorRecord.State.DEAD) {
            markDead(actor, new DeathCause.ProcessExited(exitCode, stderrTail, oomKills));
        }
        release(actor);
    }

    /**
     * An actor's worker connection closed. Its process normally exits right after and
     * {@link #onActorExited} reports the real exit code; if it lingers, kill it.
     */
    public void onWorkerDisconnected(String actorId) {
        ActorRecord actor;
        synchronized (this) {
            actor = actors.get(actorId);
            if (actor == null || actor.processGone) return;
        }
        Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(WORKER_EXIT_GRACE_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            synchronized (this) {
                if (!actor.processGone) actor.node.link.killActor(actor);
            }
        });
    }

    /**
     * A node's Python-side versions arrived (shortly after its join): record them and warn
     * about any that differ from the head's.
     */
    public synchronized void onNodeVersions(String nodeId, com.fasterxml.jackson.databind.JsonNode versions,
                                            ObjectNode headFacts) {
        Node node = nodes.get(nodeId);
        if (node == null || !(versions instanceof ObjectNode v)) return;
        ((ObjectNode) node.facts.withObject("/versions")).setAll(v);
        node.facts.set("version_warnings", VersionCheck.compare(headFacts, node.facts, node.ip));
    }

    /** Facts a node reported after its join (its HTTP ports): merged into what it said at the join. */
    public synchronized void onNodeFacts(String nodeId, ObjectNode facts) {
        Node node = nodes.get(nodeId);
        if (node != null) node.facts.setAll(facts);
    }

    /** A {@code log} frame from an actor's node, for its owner. */
    public synchronized void onActorLog(String actorId, Frame log) {
        ActorRecord actor = actors.get(actorId);
        history.log(actorId, log);
        if (actor != null && actor.owner.logToDriver()) actor.owner.push(log);
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
        for (ActorRecord a : new ArrayList<>(actors.values())) {
            if (a.node != node) continue;
            a.processGone = true;
            if (a.state != ActorRecord.State.DEAD) markDead(a, new DeathCause.NodeLost(node.ip + " (" + reason + ")"));
            a.held = null;
            retire(a);
        }
        groups.onNodeLost(node);
        reschedule();
    }

    /** A driver or worker connection closed: fate-share its actors and groups. */
    public void onClientGone(Client client) {
        onClientsGone(List.of(client));
    }

    /**
     * Clients gone together (every client of a lost node): fate-share their actors and
     * groups in one pass over the tables, not one per client: a node with 1,000 actors in a
     * cluster of 100,000 held the lock for minutes that way.
     */
    public synchronized void onClientsGone(java.util.Collection<? extends Client> clients) {
        if (clients.isEmpty()) return;
        java.util.Set<Client> gone = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        gone.addAll(clients);
        List<ActorRecord> owned = new ArrayList<>(); // by the owner index: an actor's worker leaving owns none
        for (Client c : gone) owned.addAll(byOwner.getOrDefault(c, Set.of()));
        for (ActorRecord a : owned) {
            if (!a.options.detached()) killActor(a, new DeathCause.OwnerExited(a.owner.describe()));
        }
        groups.onOwnersGone(gone);
        for (ActorRecord a : actors.values()) {
            if (!a.inFlight.isEmpty()) a.inFlight.values().removeIf(gone::contains);
            if (!a.queued.isEmpty()) a.queued.removeIf(c -> gone.contains(c.caller()));
        }

    }

    /** Kills every actor (daemon shutdown). */
    public synchronized void stopAll() {
        for (ActorRecord a : new ArrayList<>(actors.values())) killActor(a, new DeathCause.DaemonStopping());
    }

    /** The group's actors still in the table: a removal costs its own actors, not every actor. */
    synchronized List<ActorRecord> actorsIn(PlacementGroup group) {
        return List.copyOf(group.actors);
    }

    public synchronized List<ActorRecord> liveActors() {
        return actors.values().stream().filter(a -> a.state != ActorRecord.State.DEAD).toList();
    }

    // ------------------------------------------------------------------ state views

    public synchronized ObjectNode clusterState() {
        return ClusterViews.state(this, nodes.values());
    }

    public synchronized ObjectNode status() {
        ObjectNode s = ClusterViews.state(this, nodes.values());
        s.set("actors", ClusterViews.actors(actors.values()));
        s.set("placement_groups", groups.tableLive()); // removed ones are placement_group_table's
        s.set("recent_deaths", history.deaths());
        s.set("dead_actors_by_class", history.deathsByClass());
        return s;
    }

    /** The last {@code lines} lines actor {@code actorId} printed, or null if none were seen here. */
    public synchronized String actorLogTail(String actorId, int lines) {
        return history.tail(actorId, lines);
    }

    /** A heartbeat round trip to {@code nodeId} took {@code micros}. */
    public synchronized void onNodeRtt(String nodeId, long micros) {
        Node node = nodes.get(nodeId);
        if (node != null) node.rttMicros = micros;
    }

    public synchronized int actorCount() {
        return actors.size();
    }

    public synchronized int tombstoneCount() {
        return tombstones.size();
    }
}
