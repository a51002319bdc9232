package beam.cluster;

import beam.util.Scheduler;
import beam.util.DeviceTelemetry;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The cluster's changes: nodes join and leave, actors are created, called and killed, workers
 * and node agents report back. The tables, their lock and the reads views make are in
 * {@link ClusterTables}; actors live in {@link ActorLifecycle}, their placement in
 * {@link ActorScheduler}, placement groups in {@link PlacementGroups}; all of them share the
 * one lock, {@link #lock}, an object private to this package.
 *
 * <p>Threads: every public method holds the lock while it reads or changes state;
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
 * <p>Time: every reading of it in the domain goes through the {@link Scheduler} the cluster
 * is made with (the system's in the daemon, a manual one in tests), and so do its timers.
 * Views read {@link #snapshot()} or a point query ({@link #actor}, {@link #node},
 * {@link #liveNodeSnapshots}) and ask a node through {@link #ask}; they never write, and none
 * of them can take the lock.
 */
public final class Cluster extends ClusterTables {
    static final long WORKER_EXIT_GRACE_MILLIS = 2_000;
    static final int MAX_TOMBSTONES = 10_000;
    public static final long DEFAULT_LONG_CALL_MILLIS = 60_000;

    /** {@code timers}: the clock the domain reads and its timers run on (the system's, or a test's manual one). */
    public Cluster(String namespace, Scheduler timers) {
        super(namespace, timers);
    }

    /** Sets the age past which a running call counts as long (ray start --long-call-seconds). */
    public void longCallMillis(long millis) {
        if (millis < 1) throw new IllegalArgumentException("the long-call threshold must be at least 1 ms, not " + millis);
        longCallMillis = millis;
    }

    /**
     * A node joins: ALIVE from here until it leaves or is lost ({@link #onNodeLost}), then
     * DEAD for good; a node that comes back joins as a new node with a new id. Its start time
     * is its join, on the cluster's clock.
     */
    public void addNode(Node node) {
        synchronized (lock) {
            node.startedMillis = timers.wallMillis();
            nodes.put(node.id, node);
            scheduler.nodeAdded(node);
            reschedule();
            scheduler.membershipChanged();
        }
    }

    // ---------------------------------------------------------------- actors

    /** Creates an actor; with {@code getIfExists}, the live actor holding its name instead (atomic: one lock). */
    public ActorRecord createActor(Client owner, String actorId, String className, String name, String namespace,
                                   ActorOptions options, byte[] payload, boolean getIfExists) throws RequestException {
        synchronized (lock) {
            return actors.create(owner, actorId, className, name, namespace, options, payload, getIfExists);
        }
    }

    /**
     * A call to {@code actorId}; {@code frame} is the caller's, forwarded as it is when it is a
     * plain call; {@code label} is the short string the caller named it by (its first argument), or null.
     */
    public void call(Client caller, String actorId, String oid, String method, String label, Forwarded frame) {
        Runnable tell;
        synchronized (lock) {
            tell = actors.calls.route(caller, actorId, oid, method, label, frame);
        }
        if (tell != null) tell.run();
    }

    public void kill(String actorId) throws RequestException {
        synchronized (lock) {
            actors.kill(actorId);
        }
    }

    /** Handle counting (ActorHolders): a handle pickled, first held by {@code client}, or no more held. */
    public void lendHandle(String actorId) {
        synchronized (lock) {
            actors.lend(actorId);
        }
    }

    public void borrowHandle(Client client, String actorId, boolean lent) {
        synchronized (lock) {
            actors.borrow(client, actorId, lent);
        }
    }

    public void releaseHandle(Client client, String actorId) {
        synchronized (lock) {
            actors.release(client, actorId);
        }
    }

    /** The live actor named {@code name} in {@code namespace} (ray.get_actor). */
    public ActorRecord actorByName(String name, String namespace) throws RequestException {
        synchronized (lock) {
            return actors.byName(name, namespace);
        }
    }

    // ------------------------------------------------ callbacks from workers and node agents

    /** A worker connected for {@code actorId}; returns its record so the caller can send actor_init. */
    public ActorRecord onWorkerHello(String actorId, Client worker) throws RequestException {
        synchronized (lock) {
            return actors.processes.onWorkerHello(actorId, worker);
        }
    }

    public void onActorReady(String actorId, String reprName) {
        synchronized (lock) {
            actors.onReady(actorId, reprName);
        }
    }

    public void onActorFailed(String actorId, String traceback) {
        synchronized (lock) {
            actors.onFailed(actorId, traceback);
        }
    }

    /** A worker's result; {@code ok}: the method returned (status "ok"), else it raised. */
    public void onResult(String actorId, String oid, boolean ok, Forwarded result) {
        Client caller;
        synchronized (lock) {
            caller = actors.calls.takeCaller(actorId, oid, ok);
        }
        if (caller != null) caller.callResult(result);
    }

    public void onActorProcessStarted(String actorId, long pid) {
        synchronized (lock) {
            actors.processes.onProcessStarted(actorId, pid);
        }
    }

    public void onActorStartFailed(String actorId, String detail) {
        synchronized (lock) {
            actors.processes.onStartFailed(actorId, detail);
        }
    }

    /**
     * An actor's process exited. Its last results may still be on their way on the worker's
     * connection, which the node's exit report overtakes; the exit applies once that
     * connection has closed, or after {@link #WORKER_EXIT_GRACE_MILLIS} if it stays open (a
     * child process that inherited it).
     */
    public void onActorExited(String actorId, int exitCode, List<String> stderrTail, long oomKills) {
        boolean pending;
        synchronized (lock) {
            pending = actors.processes.onExited(actorId, new WorkerExit(exitCode, stderrTail, oomKills));
        }
        if (pending) {
            timers.after(WORKER_EXIT_GRACE_MILLIS, () -> {
                synchronized (lock) {
                    actors.processes.applyPendingExit(actorId);
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
        synchronized (lock) {
            if (!actors.processes.onWorkerClosed(actorId)) return;
            actor = actors.processes.running(actorId);
            if (actor == null) return;
        }
        timers.after(WORKER_EXIT_GRACE_MILLIS, () -> {
            synchronized (lock) {
                if (!actor.processGone) actor.node.link.killActor(actor);
            }
        });
    }

    /**
     * A node's Python-side versions arrived (shortly after its join, the head's own included):
     * merged into its facts and compared with the head's ({@link VersionRules}). Returns the
     * warnings it set, for the daemon's log.
     */
    public List<String> onNodeVersions(String nodeId, Map<String, String> versions) {
        synchronized (lock) {
            Node node = nodes.get(nodeId);
            if (node == null) return List.of();
            node.facts = node.facts.withVersions(versions);
            return VersionRules.compare(node, nodes.values());
        }
    }

    /** A node's HTTP face is bound: its ports by role ({@code metrics}, {@code agent}). */
    public void onHttpPorts(String nodeId, Map<String, Integer> ports) {
        synchronized (lock) {
            Node node = nodes.get(nodeId);
            if (node != null) node.facts = node.facts.withHttpPorts(ports);
        }
    }

    /** A node's accelerator sample (every few seconds while its vendor tool runs): replaces its last. */
    public void onTelemetry(String nodeId, DeviceTelemetry sample) {
        synchronized (lock) {
            Node node = nodes.get(nodeId);
            if (node != null) node.telemetry = sample;
        }
    }

    /**
     * A batch of an actor's output from its node: its owner is sent it (when it asked for its
     * actors' output). Nothing is kept here: the node keeps the files ({@code ray logs}).
     */
    public void onActorLog(String actorId, Forwarded output) {
        synchronized (lock) {
            actors.onLog(actorId, output);
        }
    }

    /**
     * A node died or left: its resources leave the cluster, its actors are dead (every
     * pending call fails now), and placement group bundles that lived on it are re-placed
     * when capacity allows. A node that comes back joins as a new node.
     */
    public void onNodeLost(String nodeId, String reason) {
        synchronized (lock) {
            Node node = nodes.get(nodeId);
            if (node == null || !node.alive) return;
            node.alive = false;
            node.deathReason = reason;
            actors.onNodeLost(node, reason);
            groups.onNodeLost(node);
            reschedule();
            scheduler.membershipChanged();
        }
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
    public void onClientsGone(Collection<? extends Client> clients) {
        synchronized (lock) {
            if (clients.isEmpty()) return;
            Set<Client> gone = Collections.newSetFromMap(new IdentityHashMap<>());
            gone.addAll(clients);
            actors.onClientsGone(gone);
            groups.onOwnersGone(gone);
            actors.calls.forgetCallers(gone);
        }
    }

    /** Kills every actor (daemon shutdown). */
    public void stopAll() {
        synchronized (lock) {
            actors.killAll(new DeathCause.DaemonStopping());
        }
    }

    /** The nodes and the bundle resources on each (by node id) at one moment (the cluster_state view). */
    public record ResourceView(List<NodeSnapshot> nodes, Map<String, BundleResources> bundlesByNode) {
    }
}
