package beam.link;

import beam.cluster.SpawnSpec;
import beam.util.NodeQuestion;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.concurrent.CompletableFuture;

/**
 * The node a joined node's end of the link ({@link HeadLink}) serves: it runs the actor
 * processes the head orders, and keeps the metrics its own clients push (they stay on this
 * node). The daemon implements it over its node agent and metrics registry, so link/ needs
 * neither.
 */
public interface MemberNode {
    void spawn(SpawnSpec spec);

    void kill(String actorId);

    /** A local client's {@code metrics} frame; {@code source} names the client until {@link #sourceGone}. */
    void recordMetrics(Object source, JsonNode metrics);

    void sourceGone(Object source);

    /** The head's {@code node_ask}: this node's answer to the question (a failed future says why not). */
    CompletableFuture<? extends NodeQuestion.Answer> answer(NodeQuestion<?> question);
}
