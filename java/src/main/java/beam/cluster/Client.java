package beam.cluster;

import beam.util.ProcessContext;

/**
 * A connected driver or actor worker, as the cluster state sees it: what it is told, in the
 * domain's terms. The dispatch layer turns each event into its frame (docs/PROTOCOL.md).
 * Every event is a non-blocking write, or queued; none blocks, and one for a client that is
 * gone is dropped.
 *
 * <p>Messages that pass through the head untouched (a caller's call, a worker's result, an
 * actor's output) are carried as they arrived ({@link Forwarded}): the daemon never reads
 * their payload.
 */
public interface Client {
    /** A worker's actor is to run this call; {@code call} is the caller's message, forwarded when it can be. */
    void runCall(String oid, String method, Forwarded call);

    /** The result of a call this client made, as its actor's worker sent it. */
    void callResult(Forwarded result);

    /** A call this client made failed because its actor is dead ({@code deathMessage} says why). */
    void actorDied(String oid, String deathMessage);

    /** A call this client made failed because its actor could never be placed (Ray's ActorUnschedulableError). */
    void actorUnschedulable(String oid, String reason);

    /** A call this client made names no actor this cluster knows of. */
    void noSuchActor(String oid, String message);

    /** Output of an actor this client owns. */
    void actorLog(Forwarded log);

    /** Something the user should know that is not an error (an actor that cannot be placed yet). */
    void warning(String message);

    /** A placement group this client watches is placed. */
    void groupReady(String groupId);

    /** A placement group this client watches is removed. */
    void groupRemoved(String groupId);

    /** A placement group this client watches still waits, for the reason in {@code message}. */
    void groupWaiting(String groupId, String message);

    /** The job this client belongs to (hex), or "" before hello. */
    String jobId();

    /** Whether actor stdout/stderr should be forwarded to this client. */
    boolean logToDriver();

    /** A driver, not an actor's worker (an owner's death is worded by it, as Ray's). */
    default boolean isDriver() {
        return true;
    }

    /** For logs: "driver pid 123" or "worker of actor ab12". */
    String describe();

    /** The namespace named actors are created in and looked up from (Ray's, per driver). */
    String namespace();

    /** The client's interpreter, cwd and sys.path: actors it creates run with the same. */
    ProcessContext processContext();
}
