package beam.cluster;

/**
 * One call to an actor, from the moment the head routes it until its result (or the actor's
 * death) ends it; then a few plain values of it stay in {@link CallLog}. Made once per call
 * on the call path, so it holds references the head already has and nothing it must compute.
 * Guarded by the {@link Cluster} lock.
 */
final class ActorCall {
    final String oid;
    final String method;
    /** The call's first argument when it is a short string (vLLM's execute_method("init_device")), else null. */
    final String label;
    final Client caller;
    /** The frame to send; dropped once sent so that a finished call keeps no arguments. */
    Forwarded message;
    final long submitMillis;
    /** When a worker slot was free for it; 0 until then (see {@link #startedMillis}). */
    long startMillis;
    long endMillis;
    /** Set when it ended: whether it failed, and Ray's error type then. */
    boolean failed;
    String errorType;
    /** Copied from the actor when the call ends, for the finished ring. */
    String actorId;
    String className;
    String nodeId;
    String nodeIp;
    long pid;

    ActorCall(String oid, String method, String label, Forwarded message, Client caller, long submitMillis) {
        this.oid = oid;
        this.method = method;
        this.label = label;
        this.message = message;
        this.caller = caller;
        this.submitMillis = submitMillis;
    }

    /**
     * When it began to run: the head sees no start, so a call sent while a slot was free
     * started when sent, and one queued behind others started when the last result before it
     * came back (exact for a sequential actor, whose results come in order).
     */
    long startedMillis(long lastResultMillis) {
        return startMillis != 0 ? startMillis : Math.max(submitMillis, lastResultMillis);
    }

    CallSnapshot snapshot(ActorRecord actor, CallSnapshot.State state) {
        String id = actor != null ? actor.id : actorId;
        String cls = actor != null ? actor.className : className;
        String node = actor != null ? actor.nodeId() : nodeId;
        String ip = actor != null ? actor.nodeIp() : nodeIp;
        long workerPid = actor != null ? actor.pid : pid;
        long start = switch (state) {
            case WAITING_FOR_ACTOR, QUEUED -> 0;
            case RUNNING -> startedMillis(actor.lastResultMillis);
            case FINISHED, FAILED -> startMillis;
        };
        return new CallSnapshot(oid.substring(0, 48), cls, method, label, state, id, node, ip, workerPid,
                submitMillis, start, endMillis, errorType);
    }
}
