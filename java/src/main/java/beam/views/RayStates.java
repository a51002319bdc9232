package beam.views;

import beam.cluster.ActorRecord;
import beam.cluster.CallSnapshot;

/**
 * beam's states under Ray's names, written once for every face that shows them (the state
 * API's rows, {@code ray summary}, the Prometheus {@code ray_actors} gauge). Ray 2.60's
 * {@code ActorState.state} is one of DEPENDENCIES_UNREADY, PENDING_CREATION, ALIVE, RESTARTING
 * and DEAD; beam's actors never wait on arguments nor restart, so they use three of them.
 */
public final class RayStates {
    private RayStates() {
    }

    /** Ray's name for an actor's state: PENDING (being placed) and STARTING (its process starting) are both PENDING_CREATION. */
    public static String actor(ActorRecord.State state) {
        return switch (state) {
            case PENDING, STARTING -> "PENDING_CREATION";
            case ALIVE -> "ALIVE";
            case DEAD -> "DEAD";
        };
    }

    /**
     * Ray's name for a call's state, as Ray 2.60 shows an actor task's (tests/golden/ray-2.60-tasks.json):
     * PENDING_NODE_ASSIGNMENT while its actor is still placed or constructed, SUBMITTED_TO_WORKER
     * while it waits at the actor behind the calls it runs.
     */
    public static String call(CallSnapshot.State state) {
        return switch (state) {
            case WAITING_FOR_ACTOR -> "PENDING_NODE_ASSIGNMENT";
            case QUEUED -> "SUBMITTED_TO_WORKER";
            case RUNNING -> "RUNNING";
            case FINISHED -> "FINISHED";
            case FAILED -> "FAILED";
        };
    }
}
