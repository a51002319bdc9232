package beam.daemon;

import beam.cluster.ActorRecord;
import beam.cluster.Cluster;
import beam.cluster.NodeLink;
import beam.codec.Frame;
import beam.dispatch.WireFrame;
import beam.node.ActorEvents;
import beam.node.NodeAgent;
import beam.node.NodeQueries;
import beam.cluster.SpawnSpec;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** The head's own node: actor starts go to the local agent, its events straight to the cluster. */
final class HeadLocalNode implements NodeLink, ActorEvents {
    private final Cluster cluster;
    private final NodeQueries queries;
    private NodeAgent agent;

    HeadLocalNode(Cluster cluster, NodeQueries queries) {
        this.cluster = cluster;
        this.queries = queries;
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
    public CompletableFuture<JsonNode> ask(String kind, JsonNode args) {
        return queries.answer(kind, args);
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
