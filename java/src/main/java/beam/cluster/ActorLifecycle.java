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
 * lock: each method is called with it held. The calls to the actors are {@link ActorCalls}'s,
 * the reports of their worker processes {@link ActorProcesses}'s; both read this table.
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
    private final ActorHolders holders = new ActorHolders();
    /** The calls to these actors: Cluster routes and ends them here, under the same lock. */
    final ActorCalls calls;
    /** The worker processes' side of these actors' lives: Cluster reports their start and exit there. */
    final ActorProcesses processes = new ActorProcesses(actors, this);

    ActorLifecycle(ActorScheduler scheduler, PlacementGroups groups, ActorHistory history, CallStats callStats,
                   ActorIndex index, Clock clock) {
        this.calls = new ActorCalls(actors, tombstones, index, callStats, clock);
        this.scheduler = scheduler;
        this.index = index;
        this.groups = groups;
        this.history = history;
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
                else actor.queued.add(calls.terminateCall(actor));
            }
            case STARTING -> actor.queued.add(calls.terminateCall(actor));
            case ALIVE -> actor.worker.runCall(ActorCalls.terminateOid(actor), ActorCalls.TERMINATE, Forwarded.NO_ARGUMENTS);
        }
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

    /** Marks {@code actor} DEAD for {@code cause}: its name is free, its calls fail, its death is remembered. */
    void markDead(ActorRecord actor, DeathCause cause) {
        actor.state = ActorRecord.State.DEAD;
        scheduler.forget(actor);
        actor.deathMessage = DeathCause.message(actor, cause);
        named.remove(actor);
        history.died(actor.snapshot());
        calls.failAll(actor);
        LOG.info("actor " + actor.className + " " + actor.id + " died: " + DeathCause.describe(cause).lines().findFirst().orElse(""));
    }

    /** Returns held resources to the bundle or node, then retires the record. Idempotent. */
    void release(ActorRecord actor) {
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

    /** STARTING to ALIVE: the queued calls go out in order, before any later call can see the actor alive. */
    void onReady(String actorId, String reprName) {
        ActorRecord actor = actors.get(actorId);
        if (actor == null || actor.state != ActorRecord.State.STARTING) return;
        actor.state = ActorRecord.State.ALIVE;
        actor.reprName = reprName == null ? "" : reprName;
        calls.sendQueued(actor);
    }

    void onFailed(String actorId, String traceback) {
        ActorRecord actor = actors.get(actorId);
        if (actor != null) kill(actor, new DeathCause.ConstructorFailed(traceback));
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
