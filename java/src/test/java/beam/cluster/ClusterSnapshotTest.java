package beam.cluster;

import beam.util.Scheduler;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import beam.util.Ids;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Cluster#snapshot}: the cluster copied into records in one piece, which stay as they
 * were while the cluster moves on (views render them without the lock).
 */
class ClusterSnapshotTest {
    private Cluster cluster;
    private FakeNodes.Link link;
    private Node head;
    private final FakeNodes.RecordingClient owner = new FakeNodes.RecordingClient();

    @BeforeEach
    void setUp() {
        cluster = new Cluster("ns", Scheduler.system());
        link = new FakeNodes.Link();
        head = FakeNodes.node("10.0.0.1", 2, 4, link, true);
        cluster.addNode(head);
    }

    private String aliveActor() throws RequestException {
        String id = Ids.randomHex(16);
        ActorOptions options = new ActorOptions(new Resources().set("CPU", Resources.UNIT), null, -1, Map.of(),
                RuntimeEnv.NONE, 1, false, false, List.of());
        cluster.createActor(owner, id, "Worker", "w1", "ns", options, new byte[0], false);
        cluster.onActorProcessStarted(id, 4242);
        cluster.onWorkerHello(id, new FakeNodes.RecordingClient());
        cluster.onActorReady(id, "");
        return id;
    }

    @Test
    void nodesActorsAndCallsAreCopiedAsTheyWere() throws Exception {
        String actorId = aliveActor();
        String oid = Ids.randomHex(28);
        cluster.call(owner, actorId, oid, "m", null, new FakeNodes.Message(oid));
        ClusterSnapshot before = cluster.snapshot();

        cluster.kill(actorId);
        cluster.onNodeLost(head.id, "the test took it away");
        ClusterSnapshot after = cluster.snapshot();

        NodeSnapshot n = before.nodes().get(0);
        assertThat(n.id()).isEqualTo(head.id);
        assertThat(n.alive()).isTrue();
        assertThat(n.head()).isTrue();
        assertThat(n.total().get("CPU")).isEqualTo(4 * Resources.UNIT);
        assertThat(n.available().get("CPU")).isEqualTo(3 * Resources.UNIT); // the actor holds one
        assertThat(before.actors()).singleElement().satisfies(a -> {
            assertThat(a.id()).isEqualTo(actorId);
            assertThat(a.state()).isEqualTo(ActorRecord.State.ALIVE);
            assertThat(a.pid()).isEqualTo(4242);
            assertThat(a.name()).isEqualTo("w1");
        });
        assertThat(before.callsInFlight()).isEqualTo(1);
        assertThat(before.liveTotal().get("CPU")).isEqualTo(4 * Resources.UNIT);
        assertThat(before.liveAvailable().get("CPU")).isEqualTo(3 * Resources.UNIT);

        assertThat(after.nodes().get(0).alive()).isFalse();
        assertThat(after.nodes().get(0).deathReason()).isEqualTo("the test took it away");
        assertThat(after.liveTotal().isEmpty()).isTrue();
        assertThat(after.callsInFlight()).isZero();
        assertThat(after.recentDeaths()).extracting(d -> d.actor().id()).containsExactly(actorId);
        assertThat(after.deathsByClass()).containsEntry("Worker", 1L);
    }

    @Test
    void theRecordsCannotBeChangedByTheirReaders() throws Exception {
        aliveActor();
        ClusterSnapshot s = cluster.snapshot();
        assertThatThrownBy(() -> s.nodes().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> s.actors().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> s.deathsByClass().clear()).isInstanceOf(UnsupportedOperationException.class);
        s.nodes().get(0).available().set("CPU", 0); // a copy: the cluster's own is untouched
        assertThat(cluster.snapshot().nodes().get(0).available().get("CPU")).isEqualTo(3 * Resources.UNIT);
    }

    @Test
    void groupsCarryTheirPlacementWaitAndRemoval() throws Exception {
        Resources two = new Resources().set("CPU", 2 * Resources.UNIT);
        Resources tooBig = new Resources().set("CPU", 64 * Resources.UNIT);
        cluster.groups().create(owner, "placed", "p", "PACK", List.of(two, two), false);
        cluster.groups().create(owner, "waits", "w", "PACK", List.of(tooBig), false);

        ClusterSnapshot s = cluster.snapshot();
        GroupSnapshot placed = s.groups().get(0);
        assertThat(placed.state()).isEqualTo(GroupState.CREATED);
        assertThat(placed.bundleNodes()).containsExactly(head.id, head.id);
        assertThat(placed.bundles()).containsExactly(two, two);
        assertThat(placed.waitingReason()).isNull();
        assertThat(placed.waitedSeconds()).isZero();
        GroupSnapshot waits = s.groups().get(1);
        assertThat(waits.state()).isEqualTo(GroupState.PENDING);
        assertThat(waits.bundleNodes()).containsExactly((String) null);
        assertThat(waits.waitingReason()).isNotBlank();
        assertThat(waits.creationLatencyMs()).isZero();
        assertThat(waits.waitedSeconds()).isPositive();

        cluster.groups().remove("placed");
        assertThat(cluster.snapshot().groups()).extracting(GroupSnapshot::id).containsExactly("waits");
        GroupSnapshot removed = cluster.groups().table("placed");
        assertThat(removed.state()).isEqualTo(GroupState.REMOVED);
        assertThat(removed.bundleNodes()).containsExactly(null, null);
        assertThat(cluster.groups().tableAll()).extracting(GroupSnapshot::id).containsExactly("placed", "waits");
    }
}
