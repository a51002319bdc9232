package beam.util;

/**
 * What kind of failure a request or call met, as the daemon's layers name it; {@link #rayName}
 * is the one table from a kind to the name the wire carries, which the Python side turns into
 * the exception of that name ({@code python/ray/_beam/wire/errors.py}). It lives with the
 * layers every folder may use because the frame codec, the domain and dispatch all fail
 * requests, and none of them may reach up to another for the table.
 */
public enum ErrorKind {
    /** The request was wrong (unknown id, name taken, never fits, bad field); the message says how to fix it. */
    INVALID_REQUEST,
    /** The daemon refused or ended the connection (bad hello, a link refused). */
    CONNECTION_REFUSED,
    /** A bug in the daemon; the message says "internal error". */
    INTERNAL,
    /** A frame the daemon could not send or take (over a limit). */
    FRAME_REFUSED,
    /** The actor a call went to is dead. */
    ACTOR_DIED,
    /** The actor a call went to could never be placed (a hard node affinity to a node gone or too small). */
    ACTOR_UNSCHEDULABLE;

    /** The exception name the wire carries as {@code kind} (Ray's, or Python's builtin). */
    public String rayName() {
        return switch (this) {
            case INVALID_REQUEST -> "ValueError";
            case CONNECTION_REFUSED -> "ConnectionError";
            case INTERNAL -> "RuntimeError";
            case FRAME_REFUSED -> "RaySystemError";
            case ACTOR_DIED -> "ActorDiedError";
            case ACTOR_UNSCHEDULABLE -> "ActorUnschedulableError";
        };
    }

    /** A failed result's {@code status}: {@code actor_died} for a dead actor, else {@code error}. */
    public String resultStatus() {
        return this == ACTOR_DIED ? "actor_died" : "error";
    }
}
