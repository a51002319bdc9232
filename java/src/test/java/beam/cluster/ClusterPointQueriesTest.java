package beam.cluster;

import beam.util.Scheduler;
import static org.assertj.core.api.Assertions.assertThat;

import beam.util.Ids;
import beam.util.NodeQuestion;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The reads views make without the cluster's lock: one actor or node by id (copied under the
 * lock), the nodes running a pid, and a question to a node by id, which fails naming a node
 * that is gone.
 */
class ClusterPointQueriesTest {
    private final Cluster cluster = new Cluster("ns", Scheduler.system());
    private final FakeNodes.Link headLink = new FakeNodes.Link();
    private final FakeNodes.Link memberLink = new FakeNodes.Link();
    private final Node head = FakeNodes.node("10.0.0.1", 0, 4, headLink, true);
    private final Node member = FakeNodes.node("10.0.0.2", 0, 4, memberLink, false);
    private final FakeNodes.RecordingClient owner = new FakeNodes.RecordingClient();

    ClusterPointQueriesTest() {
        cluster.addNode(head);
        cluster.addNode(member);
    }

    private String actorWithPid(long pid) throws RequestException {
        String id = Ids.randomHex(16);
        ActorOptions options = new ActorOptions(new Resources().set("CPU", Resources.UNIT), null, -1, Map.of(),
                RuntimeEnv.NONE, 1, false, false, List.of());
        cluster.createActor(owner, id, "Worker", null, "ns", options, new byte[0], false);
        cluster.onActorProcessStarted(id, pid);
        return id;
    }

    @Test
    void anActorIsFoundByIdInTheTableAndAfterItIsRetiredAmongTheRecentDeaths() throws Exception {
        String id = actorWithPid(4242);
        ActorSnapshot alive = cluster.actor(id);
        assertThat(alive.pid()).isEqualTo(4242);
        assertThat(alive.state()).isNotEqualTo(ActorRecord.State.DEAD);
        assertThat(cluster.nodesRunningPid(4242)).containsExactly(alive.nodeId());
        assertThat(cluster.nodesRunningPid(4243)).isEmpty();

        cluster.kill(id);
        cluster.onActorExited(id, 137, List.of(), 0);
        cluster.onWorkerDisconnected(id); // no worker connected: the exit applies now
        assertThat(cluster.actorCount()).as("the actor is retired from the table").isZero();
        assertThat(cluster.actor(id)).isNotNull().extracting(ActorSnapshot::state).isEqualTo(ActorRecord.State.DEAD);
        assertThat(cluster.actor(Ids.randomHex(16))).isNull();
    }

    @Test
    void nodesAreCopiedByIdAndOnlyTheLiveOnesAreListedAsLive() {
        assertThat(cluster.node(member.id)).extracting(NodeSnapshot::ip, NodeSnapshot::alive).containsExactly("10.0.0.2", true);
        cluster.onNodeLost(member.id, "the test took it away");
        assertThat(cluster.node(member.id)).extracting(NodeSnapshot::alive, NodeSnapshot::deathReason)
                .containsExactly(false, "the test took it away");
        assertThat(cluster.liveNodeSnapshots()).extracting(NodeSnapshot::id).containsExactly(head.id);
        assertThat(cluster.node("no-such-node")).isNull();
    }

    @Test
    void aQuestionGoesToTheNodesLinkAndToAGoneNodeFailsNamingIt() {
        var question = new NodeQuestion.ListLogs("*.log");
        cluster.ask(member.id, question);
        assertThat(memberLink.asked).containsExactly(question);
        assertThat(headLink.asked).isEmpty();

        cluster.onNodeLost(member.id, "lost");
        CompletableFuture<NodeQuestion.LogFiles> gone = cluster.ask(member.id, question);
        assertThat(gone).failsWithin(java.time.Duration.ZERO).withThrowableThat()
                .withMessageContaining("node " + member.hostname + " (10.0.0.2) is gone");
        assertThat(memberLink.asked).hasSize(1); // nothing sent down a dead link
        assertThat(cluster.ask("no-such-node", question)).isCompletedExceptionally();
    }

    @Test
    void versionWarningsAreSetByTheClusterAndReplaceTheLast() {
        cluster.onNodeVersions(head.id, java.util.Map.of("python", "3.11.7"));
        cluster.onNodeVersions(member.id, java.util.Map.of("python", "3.12.1"));
        assertThat(cluster.node(member.id).facts().versionWarnings())
                .containsExactly("python 3.12.1 on 10.0.0.2 differs from 3.11.7 on the head");
        cluster.onNodeVersions(member.id, java.util.Map.of("python", "3.11.2"));
        assertThat(cluster.node(member.id).facts().versionWarnings()).isEmpty();
    }
}
