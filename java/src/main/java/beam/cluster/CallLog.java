package beam.cluster;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The most recent ended calls, newest last, at most {@link #MAX_ENDED} of them: what the
 * task list shows besides the calls still pending or running. Guarded by the {@link Cluster} lock.
 */
final class CallLog {
    static final int MAX_ENDED = 1_000;
    static final String TASK_EXECUTION_EXCEPTION = "TASK_EXECUTION_EXCEPTION";
    static final String ACTOR_DIED = "ACTOR_DIED";

    private final ArrayDeque<ActorCall> ended = new ArrayDeque<>(MAX_ENDED);

    /** {@code call} of {@code actor} ended ({@code sent}: after it reached the worker); it keeps where it ran, not the actor. */
    void ended(ActorRecord actor, ActorCall call, long nowMillis, String errorType, boolean sent) {
        if (sent && call.startMillis == 0) call.startMillis = call.startedMillis(actor.lastResultMillis);
        call.endMillis = nowMillis;
        call.failed = errorType != null;
        call.errorType = errorType;
        call.message = null;
        call.actorId = actor.id;
        call.className = actor.className;
        call.nodeId = actor.nodeId();
        call.nodeIp = actor.nodeIp();
        call.pid = actor.pid;
        if (ended.size() == MAX_ENDED) ended.pollFirst();
        ended.addLast(call);
    }

    /** {@code actor} died at {@code now} (wall millis): each of its queued and in-flight calls fails with its death message. */
    void failAll(ActorRecord actor, CallStats stats, long now) {
        for (ActorCall c : actor.queued) {
            stats.failed();
            if (c.caller == null) continue; // the head's own __ray_terminate__
            ended(actor, c, now, ACTOR_DIED, false);
            actor.failCall(c.caller, c.oid);
        }
        actor.queued.clear();
        for (ActorCall c : actor.inFlight.values()) {
            stats.failed();
            ended(actor, c, now, ACTOR_DIED, true);
            actor.failCall(c.caller, c.oid);
        }
        actor.inFlight.clear();
    }

    /** The ended calls, newest first. */
    List<CallSnapshot> snapshots() {
        List<CallSnapshot> out = new ArrayList<>(ended.size());
        var it = ended.descendingIterator();
        while (it.hasNext()) {
            ActorCall c = it.next();
            out.add(c.snapshot(null, c.failed ? CallSnapshot.State.FAILED : CallSnapshot.State.FINISHED));
        }
        return out;
    }
}
