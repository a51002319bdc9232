package beam.daemon;

import beam.cluster.SpawnSpec;
import beam.link.MemberNode;
import beam.metrics.UserMetrics;
import beam.node.NodeAgent;
import beam.node.NodeAnswers;
import beam.util.NodeQuestion;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.concurrent.CompletableFuture;

/** A joined node as its link to the head sees it: the head's orders go to its agent, its clients' metrics stay here. */
record LinkedNode(NodeAgent agent, UserMetrics metrics, NodeAnswers answers) implements MemberNode {
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
