package beam.cluster;

import beam.util.Scheduler;
import static org.assertj.core.api.Assertions.assertThat;

import beam.util.Ids;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** NodeAffinitySchedulingStrategy (hard and soft), the "SPREAD" strategy and INFEASIBLE groups, as Ray has them. */
class NodeAffinityTest {
    private static final String UNKNOWN_NODE = "ab".repeat(28);
    private Cluster cluster;
    private FakeNodes.Link link;
    private FakeNodes.RecordingClient driver;
    private Node a;
    private Node b;
    private Node c;

    @BeforeEach
    void setUp() {
        cluster = new Cluster("ns", Scheduler.system());
        link = new FakeNodes.Link();
        driver = new FakeNodes.RecordingClient();
        a = FakeNodes.node("10.0.0.1", 4, 8, link, true);
        b = FakeNodes.node("10.0.0.2", 4, 8, link, false);
        c = FakeNodes.node("10.0.0.3", 2, 8, link, false);
        cluster.addNode(a);
        cluster.addNode(b);
        cluster.addNode(c);
    }

    private static ActorOptions options(double gpus, NodeAffinity affinity, boolean spread) {
        return new ActorOptions(new Resources().set("GPU", Resources.toUnits(gpus)), null, -1, Map.of(),
                RuntimeEnv.NONE, 1, false, false, List.of(), affinity, spread);
    }

    private String create(ActorOptions options) throws RequestException {
        String id = Ids.randomHex(16);
        cluster.createActor(driver, id, "A", null, null, options, new byte[0], false);
        return id;
    }

    /** What the driver was answered for a call to {@code actorId}. */
    private ClientEvent call(String actorId) {
        String oid = Ids.randomHex(28);
        cluster.call(driver, actorId, oid, "m", null, new FakeNodes.Message(oid));
        return driver.answers().getLast();
    }

    private ActorRecord started(String id) {
        return link.started.stream().filter(r -> r.id().equals(id)).findFirst().orElse(null);
    }

    @Test
    void aHardAffinityRunsOnItsNodeThoughAnEarlierNodeHasRoom() throws Exception {
        String id = create(options(1, new NodeAffinity(b.id, false), false));
        assertThat(started(id).nodeId()).isEqualTo(b.id);
    }

    @Test
    void aHardAffinityToABusyNodeWaitsThereAndRunsWhenItFrees() throws Exception {
        String filler = create(options(4, new NodeAffinity(b.id, false), false));
        String waiting = create(options(1, new NodeAffinity(b.id, false), false));
        assertThat(started(waiting)).as("an actor pinned to a full node must wait, not run elsewhere").isNull();
        cluster.onActorExited(filler, 0, List.of(), 0);
        assertThat(started(waiting)).as("the pinned actor after its node freed").isNotNull();
        assertThat(started(waiting).nodeId()).isEqualTo(b.id);
    }

    @Test
    void aHardAffinityToAnUnknownOrTooSmallNodeFailsItsCallsAsUnschedulable() throws Exception {
        for (ActorOptions o : List.of(options(1, new NodeAffinity(UNKNOWN_NODE, false), false),
                options(3, new NodeAffinity(c.id, false), false))) {
            String id = create(o);
            assertThat(started(id)).isNull();
            assertThat(call(id)).isInstanceOfSatisfying(ClientEvent.ActorUnschedulable.class,
                    unschedulable -> assertThat(unschedulable.message()).isEqualTo(NodeAffinity.UNSCHEDULABLE));
        }
    }

    @Test
    void aHardAffinityWaitingOnANodeThatIsLostFailsAsUnschedulable() throws Exception {
        create(options(4, new NodeAffinity(b.id, false), false));
        String waiting = create(options(1, new NodeAffinity(b.id, false), false));
        cluster.onNodeLost(b.id, "test kill");
        assertThat(call(waiting)).isInstanceOf(ClientEvent.ActorUnschedulable.class);
    }

    @Test
    void aSoftAffinityRunsElsewhereWhenItsNodeIsUnknownOrLost() throws Exception {
        String unknown = create(options(1, new NodeAffinity(UNKNOWN_NODE, true), false));
        assertThat(started(unknown)).isNotNull();
        cluster.onNodeLost(b.id, "test kill");
        String lost = create(options(1, new NodeAffinity(b.id, true), false));
        assertThat(started(lost).nodeId()).isNotEqualTo(b.id);
    }

    @Test
    void spreadPutsEachNewActorOnTheNodeHoldingFewestActors() throws Exception {
        List<String> nodes = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) nodes.add(started(create(options(0.5, null, true))).nodeId());
        assertThat(nodes).as("SPREAD over three empty nodes").containsExactlyInAnyOrder(a.id, b.id, c.id);
    }

    @Test
    void aGroupNoNodeCouldHoldIsInfeasibleAndABusyOneHasNoResources() throws Exception {
        String infeasible = Ids.randomHex(18);
        cluster.groups().create(driver, infeasible, "", "PACK", List.of(new Resources().set("GPU", 5 * Resources.UNIT)), false);
        String busyFiller = Ids.randomHex(18);
        cluster.groups().create(driver, busyFiller, "", "STRICT_PACK",
                List.of(new Resources().set("GPU", 4 * Resources.UNIT)), false);
        cluster.groups().create(driver, Ids.randomHex(18), "", "STRICT_PACK",
                List.of(new Resources().set("GPU", 4 * Resources.UNIT)), false);
        String busy = Ids.randomHex(18);
        cluster.groups().create(driver, busy, "", "STRICT_PACK", List.of(new Resources().set("GPU", 4 * Resources.UNIT)), false);
        // views/GroupViews names these Ray's scheduling_state (INFEASIBLE, NO_RESOURCES, FINISHED): GroupStatsTest
        assertThat(cluster.groups().table(infeasible).state()).isEqualTo(GroupState.PENDING);
        assertThat(cluster.groups().table(infeasible).infeasible()).isTrue();
        assertThat(cluster.groups().table(busy).state()).isEqualTo(GroupState.PENDING);
        assertThat(cluster.groups().table(busy).infeasible()).isFalse();
        cluster.addNode(FakeNodes.node("10.0.0.9", 8, 8, link, false));
        assertThat(cluster.groups().table(infeasible).state()).isEqualTo(GroupState.CREATED);
    }
}
