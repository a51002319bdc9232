package beam.cluster;

import java.util.Map;

/**
 * The worker process's side of an actor's life: its process started (or failed to), its
 * worker said hello, its process exited, its connection closed. A node reports an exit on
 * another path than the worker's connection, so an exit may be kept pending until the last
 * results are read (see {@link #onExited}). Guarded by the cluster lock; the transitions to
 * DEAD are {@link ActorLifecycle}'s.
 */
final class ActorProcesses {
    private final Map<String, ActorRecord> table;
    private final ActorLifecycle lifecycle;

    /** {@code table}: the lifecycle's actor table, read here, never changed. */
    ActorProcesses(Map<String, ActorRecord> table, ActorLifecycle lifecycle) {
        this.table = table;
        this.lifecycle = lifecycle;
    }

    ActorRecord onWorkerHello(String actorId, Client worker) throws RequestException {
        ActorRecord actor = table.get(actorId);
        if (actor == null || actor.state != ActorRecord.State.STARTING || actor.worker != null) {
            throw RequestException.value("no actor " + actorId + " is waiting for a worker");
        }
        actor.worker = worker;
        return actor;
    }

    void onProcessStarted(String actorId, long pid) {
        ActorRecord actor = table.get(actorId);
        if (actor == null) return;
        actor.pid = pid;
        // Killed while its process was being launched: finish the job now.
        if (actor.state == ActorRecord.State.DEAD) actor.node.link.killActor(actor);
    }

    void onStartFailed(String actorId, String detail) {
        ActorRecord actor = table.get(actorId);
        if (actor == null) return;
        actor.processGone = true;
        lifecycle.kill(actor, new DeathCause.StartFailed(detail));
        lifecycle.release(actor);
    }

    /**
     * Its process exited. The node reports an exit on another path than the worker's
     * connection, so the last results the worker wrote before exiting may not have been read
     * yet: a live actor whose connection is still open keeps its exit pending until the
     * connection closes ({@link #onWorkerClosed}), or the caller's grace runs out. Returns
     * true when the exit was kept pending.
     */
    boolean onExited(String actorId, WorkerExit exit) {
        ActorRecord actor = table.get(actorId);
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
        ActorRecord actor = table.get(actorId);
        if (actor == null) return false;
        actor.workerClosed = true;
        applyPendingExit(actorId);
        return !actor.processGone;
    }

    /** A pending exit applies, whether or not the connection closed (a child process may hold it). */
    void applyPendingExit(String actorId) {
        ActorRecord actor = table.get(actorId);
        if (actor != null && actor.pendingExit != null) applyExit(actor, actor.pendingExit);
    }

    private void applyExit(ActorRecord actor, WorkerExit exit) {
        actor.pendingExit = null;
        if (actor.state != ActorRecord.State.DEAD) {
            lifecycle.markDead(actor, actor.endedUnheld && exit.code() == 0 ? new DeathCause.OutOfScope()
                    : new DeathCause.ProcessExited(exit.code(), exit.stderrTail(), exit.oomKills()));
        }
        lifecycle.release(actor);
    }

    /** The record of an actor whose process may still run, or null. */
    ActorRecord running(String actorId) {
        ActorRecord actor = table.get(actorId);
        return actor == null || actor.processGone ? null : actor;
    }
}
