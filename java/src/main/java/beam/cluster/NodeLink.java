package beam.cluster;

import java.util.List;

/**
 * What the cluster asks of the node that hosts an actor. The local node answers in-process
 * ({@link beam.node.NodeAgent}); a remote node would answer over its TCP link. Both report
 * back through the {@link Cluster} callbacks ({@code onActorStarted}, {@code onActorExited}).
 */
public interface NodeLink {
    /**
     * Starts the actor's worker process with these device ids per accelerator resource; must
     * not block the caller for long.
     */
    void startActor(ActorRecord actor, java.util.Map<String, List<String>> deviceIds);

    /** Kills the actor's process tree (SIGKILL). No-op if it is not running. */
    void killActor(ActorRecord actor);

    /** Connects from that node to each target {@code {node_id, ip, port}}; one result per target. */
    java.util.concurrent.CompletableFuture<com.fasterxml.jackson.databind.JsonNode> probe(
            com.fasterxml.jackson.databind.JsonNode targets);
}
