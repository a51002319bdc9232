package beam.cluster;

import beam.util.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Calls to actors, from routing to their end: queued while the actor starts, in flight once
 * sent (made before the frame goes out, so a death fails it whether or not it was written),
 * ended into the {@link CallLog}. Times are wall milliseconds on the cluster's clock. Guarded
 * by the cluster lock: {@link ActorLifecycle}, which owns the actor table, calls each method
 * with it held.
 */
final class ActorCalls {
    /** The call that ends an actor gracefully, behind the calls already sent to it (Ray's name). */
    static final String TERMINATE = "__ray_terminate__";

    private final Map<String, ActorRecord> table;
    private final Map<String, Tombstone> tombstones;
    private final ActorIndex index;
    private final CallStats stats;
    private final CallLog log = new CallLog();
    private final Clock clock;

    /** {@code table} and {@code tombstones}: the lifecycle's own, read here, never changed. */
    ActorCalls(Map<String, ActorRecord> table, Map<String, Tombstone> tombstones, ActorIndex index, CallStats stats,
               Clock clock) {
        this.table = table;
        this.tombstones = tombstones;
        this.index = index;
        this.stats = stats;
        this.clock = clock;
    }

    /** Routes a call: what to tell whom once the lock is released, or null when it is queued. */
    Runnable route(Client caller, String actorId, String oid, String method, String label, Forwarded frame) {
        stats.call();
        ActorRecord actor = table.get(actorId);
        if (actor == null || actor.state == ActorRecord.State.DEAD) stats.failed();
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

    /** The actor just became ALIVE: its queued calls go out in order, before any later call can see it alive. */
    void sendQueued(ActorRecord actor) {
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

    /** The caller waiting for {@code oid}, no longer in flight; null if none waits. {@code ok}: it returned, else it raised. */
    Client takeCaller(String actorId, String oid, boolean ok) {
        ActorRecord actor = table.get(actorId);
        if (actor == null) return null;
        ActorCall call = actor.inFlight.remove(oid);
        if (call == null) return null;
        long now = clock.wallMillis();
        log.ended(actor, call, now, ok ? null : CallLog.TASK_EXECUTION_EXCEPTION, true);
        actor.lastResultMillis = now;
        return call.caller;
    }

    /** {@code actor} died: its queued and in-flight calls fail with its death message. */
    void failAll(ActorRecord actor) {
        log.failAll(actor, stats, clock.wallMillis());
    }

    /** Calls of clients gone need no answer any more: a pass over the actors they called, not every actor. */
    void forgetCallers(Set<Client> gone) {
        for (ActorRecord a : index.forgetCallers(gone)) {
            if (!a.inFlight.isEmpty()) a.inFlight.values().removeIf(c -> gone.contains(c.caller));
            if (!a.queued.isEmpty()) a.queued.removeIf(c -> gone.contains(c.caller));
        }
    }

    /** The terminate call, queued behind the calls an actor not yet alive already has; nobody waits for it. */
    ActorCall terminateCall(ActorRecord actor) {
        return new ActorCall(terminateOid(actor), TERMINATE, null, Forwarded.NO_ARGUMENTS, null, clock.wallMillis());
    }

    /** The object id of the terminate call nobody waits for: the actor id, then ones. */
    static String terminateOid(ActorRecord actor) {
        return actor.id + "f".repeat(56 - actor.id.length());
    }

    /** The ended calls, newest first. */
    List<CallSnapshot> ended() {
        return log.snapshots();
    }
}
