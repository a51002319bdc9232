package beam.cluster;

/**
 * Ray's {@code NodeAffinitySchedulingStrategy}: run on the node {@code nodeId}. Hard
 * ({@code soft=false}) waits for room there and fails the actor when that node is unknown or
 * dead; soft runs there if the node is alive and could ever hold the actor, else anywhere.
 */
public record NodeAffinity(String nodeId, boolean soft) {
    /** Ray's reason, word for word, for a hard affinity to a node that is gone, unknown or too small. */
    static final String UNSCHEDULABLE = "The node specified via NodeAffinitySchedulingStrategy doesn't exist any more "
            + "or is infeasible, and soft=False was specified.";
}
