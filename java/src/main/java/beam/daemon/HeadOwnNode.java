package beam.daemon;

import beam.cluster.ActorRecord;
import beam.cluster.Cluster;
import beam.cluster.NodeControl;
import beam.codec.Frame;
import beam.dispatch.WireFrame;
import beam.node.ActorEvents;
import beam.node.NodeAgent;
import beam.node.NodeAnswers;
import beam.util.NodeQuestion;
import beam.cluster.SpawnSpec;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The head's own node, as the cluster controls it ({@link NodeControl}) without a link: actor starts go to the
 * local agent, its questions to {@link NodeAnswers}, its actor events straight to the cluster. A joined node's
 * {@link NodeControl} is the head's end of its link ({@code link/head/HeadLinkToMember}).
 */
final class HeadOwnNode implements NodeControl, ActorEvents {
    private final Cluster cluster;
    private final NodeAnswers answers;
    private NodeAgent agent;

    HeadOwnNode(Cluster cluster, NodeAnswers answers) {
        this.cluster = cluster;
        this.answers = answers;
    }

    void attach(NodeAgent agent) {
        this.agent = agent;
    }

    @Override
    public void startActor(ActorRecord actor, Map<String, List<String>> deviceIds) {
        agent.spawn(SpawnSpec.of(actor, deviceIds));
    }

    @Override
    public void killActor(ActorRecord actor) {
        agent.kill(actor.id());
    }

    @Override
    public <A extends NodeQuestion.Answer> CompletableFuture<A> ask(NodeQuestion<A> question) {
        return answers.answer(question);
    }

    @Override
    public void started(String actorId, long pid) {
        cluster.onActorProcessStarted(actorId, pid);
    }

    @Override
    public void startFailed(String actorId, String detail) {
        cluster.onActorStartFailed(actorId, detail);
    }

    @Override
    public void exited(String actorId, int exitCode, List<String> stderrTail, long oomKills) {
        cluster.onActorExited(actorId, exitCode, stderrTail, oomKills);
    }

    @Override
    public void log(String actorId, Frame logFrame) {
        cluster.onActorLog(actorId, new WireFrame(logFrame));
    }
}
