package beam.daemon;

import beam.cluster.SpawnSpec;
import beam.link.member.MemberServices;
import beam.metrics.UserMetrics;
import beam.node.NodeAgent;
import beam.node.NodeAnswers;
import beam.util.NodeQuestion;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.concurrent.CompletableFuture;

/**
 * What a joined node's daemon provides to its link to the head ({@link MemberServices}): the head's orders go to
 * its agent, its questions to {@link NodeAnswers}, its clients' metrics stay here.
 */
record MemberDaemonServices(NodeAgent agent, UserMetrics metrics, NodeAnswers answers) implements MemberServices {
    @Override
    public void spawn(SpawnSpec spec) {
        agent.spawn(spec);
    }

    @Override
    public void kill(String actorId) {
        agent.kill(actorId);
    }

    @Override
    public void recordMetrics(Object source, JsonNode values) {
        metrics.record(source, values); // logs what it refuses
    }

    @Override
    public void sourceGone(Object source) {
        metrics.sourceGone(source);
    }

    @Override
    public CompletableFuture<? extends NodeQuestion.Answer> answer(NodeQuestion<?> question) {
        return answers.answer(question);
    }
}
