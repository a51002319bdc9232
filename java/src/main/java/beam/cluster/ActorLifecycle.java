package beam.cluster;

import beam.util.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Logger;

/**
 * The actor table and every transition of an actor's life. Guarded by the {@link Cluster}
 * lock: each method is called with it held.
 *
 * <p>State machine of {@link ActorRecord.State}:
 * <pre>
 *   PENDING  --resources found-->  STARTING  --worker says actor_ready-->  ALIVE
 *      |                              |                                     |
 *      +------------------------------+---> DEAD <--------------------------+
 * </pre>
 * PENDING: waiting for room (its group not placed yet, or its bundle or node full); the
 * {@link ActorScheduler} starts it. STARTING: resources held, process launched, constructor
 * running; calls wait in the record's queue in arrival order until ALIVE. DEAD is final:
 * the constructor raised, the process exited, it was killed, its owner, group or node went
 * away. Entering DEAD fails every queued and in-flight call with the death message; once
 * the process is gone its resources return and only the death message stays (a tombstone).
 */
final class ActorLifecycle {
    private static final Logger LOG = Logger.getLogger(ActorLifecycle.class.getName());

    private final LinkedHashMap<String, ActorRecord> actors = new LinkedHashMap<>();
    private final NamedActors named = new NamedActors();
    private final ActorIndex index;
    /** Dead actors whose process is gone, as how they ended only (late calls get the real cause); bounded. */
    private final LinkedHashMap<String, Tombstone> tombstones = new LinkedHashMap<>(256, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Tombstone> eldest) {
            return size() > Cluster.MAX_TOMBSTONES;
        }
    };
    private final ActorScheduler scheduler;
    private final PlacementGroups groups;
    private final ActorHistory history;
    private final CallStats callStats;
    private final ActorHolders holders = new ActorHolders();
    private final CallLog calls = new CallLog();
    /** The cluster's clock: when calls are submitted, start and end. */
    private final Clock clock;

    ActorLifecycle(ActorScheduler scheduler, PlacementGroups groups, ActorHistory history, CallStats callStats,
                   ActorIndex index, Clock clock) {
        this.clock = clock;
        this.scheduler = scheduler;
        this.index = index;
        this.groups = groups;
        this.history = history;
        this.callStats = callStats;
    }

    /** Creates the actor, or with {@code getIfExists} returns the live one holding its name. */
    ActorRecord create(Client owner, String actorId, String className, String name, String namespace,
                       ActorOptions options, byte[] payload, boolean getIfExists) throws RequestException {
        if (actors.containsKey(actorId)) throw RequestException.value("actor id " + actorId + " is already in use");
        if (namespace == null) namespace = owner.namespace();
        ActorRecord existing = named.claim(name, namespace, getIfExists);
        if (existing != null) return existing;
        PlacementGroup group = null;
        if (options.groupId() != null) {
            group = groups.require(options.groupId());
            groups.checkActorFits(group, options);
        }
        ActorRecord actor = new ActorRecord(actorId, className, name, namespace, owner, options, payload);
        actor.group = group;
        actors.put(actorId, actor);
        index.add(actor);
        holders.created(actor, owner);
        named.put(actor);
        if (!scheduler.submit(actor) && scheduler.pinnedToNoUsableNode(actor)) {
            failUnschedulable(actor);
        } else if (actor.state == ActorRecord.State.PENDING && group == null) {
            String never = scheduler.neverFitsAnyNode(options);
            actor.waitingReason = never;
            if (never != null) {
                owner.warning("Actor " + className + " (" + actorId + ") requests " + options.request()
                        + ", which " + never + ". It stays pending until a node that can hold it joins.");
            }
        }
        return actor;
    }

    /** Routes a call: what to tell whom once the lock is released, or null when it is queued. */
    Runnable route(Client caller, String actorId, String oid, String method, String label, Forwarded frame) {
        callStats.call();
        ActorRecord actor = actors.get(actorId);
        if (actor == null || actor.state == ActorRecord.State.DEAD) callStats.failed();
        if (actor == null && tombstones.containsKey(actorId)) {
            Tombstone dead = tombstones.get(actorId);
            return () -> dead.failCall(caller, oid);
        }
        if (actor == null) {
            return () -> caller.noSuchActor(oid, "No actor with id " + actorId
                    + " exists in this cluster (was the handle made in another cluster or session?)");
        }
        return switch (actor.state) {
            case DEAD -> () -> actor.failCall(caller, oid);
            case PENDING, STARTING -> {
                index.called(actor, caller);
                actor.queued.add(new ActorCall(oid, method, label, frame, caller, clock.wallMillis()));
                yield null;
            }
            case ALIVE -> {
                index.called(actor, caller);
                ActorCall call = new ActorCall(oid, method, label, null, caller, clock.wallMillis());
                if (actor.inFlight.size() < actor.options.maxConcurrency()) call.startMillis = call.submitMillis;
                actor.inFlight.put(oid, call); // before the frame goes out: a death fails it either way
                Client worker = actor.worker;
                yield () -> worker.runCall(oid, method, frame);
            }
        };
    }

    void kill(String actorId) throws RequestException {
        ActorRecord actor = actors.get(actorId);
        if (actor == null && tombstones.containsKey(actorId)) return;
        if (actor == null) throw RequestException.value("No actor with id " + actorId + " exists");
        kill(actor, new DeathCause.Killed());
    }

    /** A handle of {@code actorId} was pickled to cross processes (see {@link ActorHolders}). */
    void lend(String actorId) {
        ActorRecord actor = actors.get(actorId);
        if (actor != null) holders.lent(actor);
    }

    /** {@code client} holds a handle of {@code actorId} now. */
    void borrow(Client client, String actorId, boolean wasLent) {
        ActorRecord actor = actors.get(actorId);
        if (actor != null) holders.borrowed(actor, client, wasLent);
    }

    /** {@code client} holds no handle of {@code actorId} any more: the last one ends the actor. */
    void release(Client client, String actorId) {
        ActorRecord actor = actors.get(actorId);
        if (actor != null && holders.released(actor, client)) endUnheld(actor);
    }

    /**
     * Ends an actor no one holds a handle to, as Ray does: gracefully, after the calls
     * already sent to it, by queueing {@code __ray_terminate__} behind them (the worker runs
     * {@code __ray_shutdown__} and exits; its resources return when its process is gone).
     * One not placed yet with no call waiting is simply dead.
     */
    private void endUnheld(ActorRecord actor) {
        actor.endedUnheld = true;
        switch (actor.state) {
            case DEAD -> { }
            // a pending actor with calls queued runs them first, as Ray does: they were sent
            // while a handle existed (ray.get(A.remote().f.remote()) drops it at once)
            case PENDING -> {
                if (actor.queued.isEmpty()) kill(actor, new DeathCause.OutOfScope());
                else actor.queued.add(terminateCall(actor));
            }
            case STARTING -> actor.queued.add(terminateCall(actor));
            case ALIVE -> actor.worker.runCall(terminateOid(actor), TERMINATE, Forwarded.NO_ARGUMENTS);
        }
    }

    private static final String TERMINATE = "__ray_terminate__";

    private ActorCall terminateCall(ActorRecord actor) {
        return new ActorCall(terminateOid(actor), TERMINATE, null, Forwarded.NO_ARGUMENTS, null, clock.wallMillis());
    }

    /** The object id of the terminate call nobody waits for: the actor id, then ones. */
    private static String terminateOid(ActorRecord actor) {
        return actor.id + "f".repeat(56 - actor.id.length());
    }

    ActorRecord byName(String name, String namespace) throws RequestException {
        return named.byName(name, namespace);
    }

    /** Kills {@code actor} for {@code cause}: fails its calls now, frees resources once the process is gone. */
    void kill(ActorRecord actor, DeathCause cause) {
        if (actor.state == ActorRecord.State.DEAD) return;
        boolean running = actor.state == ActorRecord.State.STARTING || actor.state == ActorRecord.State.ALIVE;
        markDead(actor, cause);
        if (running && !actor.processGone) actor.node.link.killActor(actor);
        else release(actor);
    }

    private void markDead(ActorRecord actor, DeathCause cause) {
        actor.state = ActorRecord.State.DEAD;
        scheduler.forget(actor);
        actor.deathMessage = DeathCause.message(actor, cause);
        named.remove(actor);
        history.died(actor.snapshot());
        calls.failAll(actor, callStats, clock.wallMillis());
        LOG.info("actor " + actor.className + " " + actor.id + " died: " + DeathCause.describe(cause).lines().findFirst().orElse(""));
    }

    /** Returns held resources to the bundle or node, then retires the record. Idempotent. */
    private void release(ActorRecord actor) {
        if (actor.held == null) {
            retire(actor);
            return;
        }
        if (actor.bundle != null) {
            actor.bundle.available.add(actor.held);
            actor.bundle.actors--;
            actor.bundle.devices.release(actor.devicesHeld);
        } else if (actor.node != null) {
            actor.node.available.add(actor.held);
            actor.node.devices.release(actor.devicesHeld);
        }
        actor.held = null;
        retire(actor);
        scheduler.reschedule();
    }

    /** A dead actor with nothing held any more leaves the table; its death message stays. */
    private void retire(ActorRecord actor) {
        if (actor.state != ActorRecord.State.DEAD || actor.held != null) return;
        if (!actor.processGone && actor.pid > 0) return;
        actors.remove(actor.id);
        index.remove(actor);
        holders.remove(actor);
        tombstones.put(actor.id, actor.tombstone());
    }

    ActorRecord onWorkerHello(String actorId, Client worker) throws RequestException {
        ActorRecord actor = actors.get(actorId);
        if (actor == null || actor.state != ActorRecord.State.STARTING || actor.worker != null) {
            throw RequestException.value("no actor " + actorId + " is waiting for a worker");
        }
        actor.worker = worker;
        return actor;
    }

    /** STARTING to ALIVE: the queued calls go out in order, before any later call can see the actor alive. */
    void onReady(String actorId, String reprName) {
        ActorRecord actor = actors.get(actorId);
        if (actor == null || actor.state != ActorRecord.State.STARTING) return;
        actor.state = ActorRecord.State.ALIVE;
        actor.reprName = reprName == null ? "" : reprName;
        long now = clock.wallMillis();
        while (!actor.queued.isEmpty()) {
            ActorCall call = actor.queued.poll();
            Forwarded message = call.message;
            call.message = null;
            if (call.caller != null) {
                if (actor.inFlight.size() < actor.options.maxConcurrency()) call.startMillis = now;
                actor.inFlight.put(call.oid, call);
            }
            actor.worker.runCall(call.oid, call.method, message);
        }
    }

    void onFailed(String actorId, String traceback) {
        ActorRecord actor = actors.get(actorId);
        if (actor != null) kill(actor, new DeathCause.ConstructorFailed(traceback));
    }

    /** The caller waiting for {@code oid}, no longer in flight; null if none waits. {@code ok}: it returned, else it raised. */
    Client takeCaller(String actorId, String oid, boolean ok) {
        ActorRecord actor = actors.get(actorId);
        if (actor == null) return null;
        ActorCall call = actor.inFlight.remove(oid);
        if (call == null) return null;
        long now = clock.wallMillis();
        calls.ended(actor, call, now, ok ? null : CallLog.TASK_EXECUTION_EXCEPTION, true);
        actor.lastResultMillis = now;
        return call.caller;
    }

    /** The ended calls, newest first. */
    List<CallSnapshot> endedCalls() {
        return calls.snapshots();
    }

    void onProcessStarted(String actorId, long pid) {
        ActorRecord actor = actors.get(actorId);
        if (actor == null) return;
        actor.pid = pid;
        // Killed while its process was being launched: finish the job now.
        if (actor.state == ActorRecord.State.DEAD) actor.node.link.killActor(actor);
    }

    void onStartFailed(String actorId, String detail) {
        ActorRecord actor = actors.get(actorId);
        if (actor == null) return;
        actor.processGone = true;
        kill(actor, new DeathCause.StartFailed(detail));
        release(actor);
    }

    /**
     * Its process exited. The node reports an exit on another path than the worker's
     * connection, so the last results the worker wrote before exiting may not have been read
     * yet: a live actor whose connection is still open keeps its exit pending until the
     * connection closes ({@link #onWorkerClosed}), or the caller's grace runs out. Returns
     * true when the exit was kept pending.
     */
    boolean onExited(String actorId, WorkerExit exit) {
        ActorRecord actor = actors.get(actorId);
        if (actor == null) return false;
        actor.processGone = true;
        if (actor.state != ActorRecord.State.DEAD && actor.worker != null && !actor.workerClosed) {
            actor.pendingExit = exit;
            return true;
        }
        applyExit(actor, exit);
        return false;
    }

    /** The worker's connection closed: a pending exit applies now. Returns whether the process is still running. */
    boolean onWorkerClosed(String actorId) {
        ActorRecord actor = actors.get(actorId);
        if (actor == null) return false;
        actor.workerClosed = true;
        applyPendingExit(actorId);
        return !actor.processGone;
    }

    /** A pending exit applies, whether or not the connection closed (a child process may hold it). */
    void applyPendingExit(String actorId) {
        ActorRecord actor = actors.get(actorId);
        if (actor != null && actor.pendingExit != null) applyExit(actor, actor.pendingExit);
    }

    private void applyExit(ActorRecord actor, WorkerExit exit) {
        actor.pendingExit = null;
        if (actor.state != ActorRecord.State.DEAD) {
            markDead(actor, actor.endedUnheld && exit.code() == 0 ? new DeathCause.OutOfScope()
                    : new DeathCause.ProcessExited(exit.code(), exit.stderrTail(), exit.oomKills()));
        }
        release(actor);
    }

    /** The record of an actor whose process may still run, or null. */
    ActorRecord running(String actorId) {
        ActorRecord actor = actors.get(actorId);
        return actor == null || actor.processGone ? null : actor;
    }

    void onLog(String actorId, Forwarded output) {
        ActorRecord actor = actors.get(actorId);
        if (actor != null && actor.owner.logToDriver()) actor.owner.actorLog(output);
    }

    /** Ray's end of an actor hard-pinned to a node unknown, dead or too small for it: its calls raise ActorUnschedulableError. */
    private void failUnschedulable(ActorRecord actor) {
        actor.unschedulable = true;
        kill(actor, new DeathCause.Unschedulable());
    }

    /**
     * The actors of a lost node are dead, their process with it; nothing of theirs is held any
     * more. Pending actors hard-pinned to it can never be placed now.
     */
    void onNodeLost(Node node, String reason) {
        for (ActorRecord a : scheduler.pendingPinnedTo(node)) failUnschedulable(a);
        for (ActorRecord a : index.on(node)) {
            a.processGone = true;
            if (a.state != ActorRecord.State.DEAD) markDead(a, new DeathCause.NodeLost(node.id, node.ip, reason));
            a.held = null;
            retire(a);
        }
    }

    /** Kills the actors owned by clients gone (unless detached) and drops what the gone ones waited for. */
    void onClientsGone(Set<Client> gone) {
        for (ActorRecord a : index.ownedBy(gone)) {
            if (!a.options.detached()) kill(a, DeathCause.ownerExited(a.owner));
        }
        for (ActorRecord a : holders.clientsGone(gone)) endUnheld(a);
    }

    /** Calls of clients gone need no answer any more: a pass over the actors they called, not every actor. */
    void forgetCallers(Set<Client> gone) {
        for (ActorRecord a : index.forgetCallers(gone)) {
            if (!a.inFlight.isEmpty()) a.inFlight.values().removeIf(c -> gone.contains(c.caller));
            if (!a.queued.isEmpty()) a.queued.removeIf(c -> gone.contains(c.caller));
        }
    }

    void killAll(DeathCause cause) {
        for (ActorRecord a : new ArrayList<>(actors.values())) kill(a, cause);
    }

    /** The group's actors still in the table: a removal costs its own actors, not every actor. */
    List<ActorRecord> in(PlacementGroup group) {
        return List.copyOf(group.actors);
    }

    Collection<ActorRecord> all() {
        return actors.values();
    }

    int tombstoneCount() {
        return tombstones.size();
    }
}
