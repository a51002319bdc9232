package beam.link.member;

import beam.cluster.SpawnSpec;
import beam.util.NodeQuestion;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.concurrent.CompletableFuture;

/**
 * What a joined node's daemon provides to its end of the link to the head
 * ({@link MemberLinkToHead}): it runs the actor processes the head orders, answers the head's
 * questions, and keeps the metrics its own clients push (they stay on this node). The daemon
 * implements it over its node agent and metrics registry ({@code daemon/MemberDaemonServices}),
 * so link/ needs neither. Its counterpart on the head is {@code link/head/HeadServices}.
 */
public interface MemberServices {
    void spawn(SpawnSpec spec);

    void kill(String actorId);

    /** A local client's {@code metrics} frame; {@code source} names the client until {@link #sourceGone}. */
    void recordMetrics(Object source, JsonNode metrics);

    void sourceGone(Object source);

    /** The head's {@code node_ask}: this node's answer to the question (a failed future says why not). */
    CompletableFuture<? extends NodeQuestion.Answer> answer(NodeQuestion<?> question);
}
