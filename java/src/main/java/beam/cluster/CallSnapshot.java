package beam.cluster;

/**
 * One actor call as it was at a moment, for views (Ray's task rows, long calls).
 *
 * @param taskId       the call's task id: its result's object id without the 4-byte index, as in Ray
 * @param label        the first argument when it is a short printable string, else null
 * @param nodeId       null while the actor is not placed (so is nodeIp)
 * @param pid          the actor's process, 0 before it has one
 * @param startMillis  0 unless it ran (see {@link ActorCall#startedMillis})
 * @param endMillis    0 unless it ended
 * @param errorType    Ray's error type when it FAILED ({@code TASK_EXECUTION_EXCEPTION}, {@code ACTOR_DIED}), else null
 */
public record CallSnapshot(String taskId, String className, String method, String label, State state, String actorId,
                           String nodeId, String nodeIp, long pid, long submitMillis, long startMillis, long endMillis,
                           String errorType) {
    /**
     * WAITING_FOR_ACTOR: queued at the head while its actor is pending or starting. QUEUED:
     * sent to the worker, behind the calls that fill its max_concurrency. RUNNING: among
     * those. FINISHED, FAILED: ended (the method raised, or the actor died first).
     */
    public enum State { WAITING_FOR_ACTOR, QUEUED, RUNNING, FINISHED, FAILED }

    /** Ray's task name, {@code Class.method}. */
    public String name() {
        return className + "." + method;
    }

    /** How long it has run at {@code nowMillis}, 0 unless RUNNING. */
    public long ageMillis(long nowMillis) {
        return state == State.RUNNING ? Math.max(0, nowMillis - startMillis) : 0;
    }
}
