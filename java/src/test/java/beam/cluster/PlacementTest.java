package beam.cluster;

import beam.util.Scheduler;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import beam.util.Ids;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PlacementTest {
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

    private static List<Resources> gpus(int count, double each) {
        return new ArrayList<>(Collections.nCopies(count, new Resources().set("GPU", Resources.toUnits(each))));
    }

    private String group(String strategy, List<Resources> bundles) throws RequestException {
        String id = Ids.randomHex(18);
        cluster.groups().create(driver, id, "", strategy, bundles, false);
        return id;
    }

    private List<String> nodesOf(String pg) throws RequestException {
        GroupSnapshot t = cluster.groups().table(pg);
        List<String> ips = new ArrayList<>();
        for (String id : t.bundleNodes()) {
            ips.add(id == null ? null : List.of(a, b, c).stream().filter(n -> n.id.equals(id)).findFirst().orElseThrow().ip);
        }
        return ips;
    }

    @Test
    void packFillsOneNodeBeforeSpilling() throws Exception {
        String pg = group("PACK", gpus(6, 1));
        assertThat(nodesOf(pg)).containsExactly("10.0.0.1", "10.0.0.1", "10.0.0.1", "10.0.0.1", "10.0.0.2", "10.0.0.2");
        assertThat(cluster.groups().table(pg).state()).isEqualTo(GroupState.CREATED);
        assertThat(driver.events(ClientEvent.GroupReady.class)).extracting(ClientEvent.GroupReady::groupId).contains(pg);
    }

    @Test
    void spreadUsesDistinctNodesFirst() throws Exception {
        assertThat(nodesOf(group("SPREAD", gpus(4, 1)))).containsExactly("10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.1");
    }

    @Test
    void strictPackWaitsForOneNodeAndIsPlacedWhenItFrees() throws Exception {
        String first = group("STRICT_PACK", gpus(3, 1));
        assertThat(nodesOf(first)).containsOnly("10.0.0.1");
        String second = group("STRICT_PACK", gpus(4, 1));
        assertThat(nodesOf(second)).containsOnly("10.0.0.2");
        String third = group("STRICT_PACK", gpus(4, 1));
        assertThat(cluster.groups().table(third).state()).isEqualTo(GroupState.PENDING);
        assertThat(waitingMessage()).contains("STRICT_PACK");
        cluster.groups().remove(first);
        assertThat(nodesOf(third)).containsOnly("10.0.0.1");
        cluster.groups().remove(first); // second removal is a no-op
    }

    @Test
    void strictSpreadNeedsDistinctNodes() throws Exception {
        assertThat(nodesOf(group("STRICT_SPREAD", gpus(3, 1)))).doesNotHaveDuplicates();
        String tooMany = group("STRICT_SPREAD", gpus(4, 0.5));
        assertThat(cluster.groups().table(tooMany).state()).isEqualTo(GroupState.PENDING);
        assertThat(waitingMessage())
                .contains("can never be placed").contains("4 distinct nodes");
    }

    @Test
    void infeasibleGroupIsReportedAtOnceAndPlacedWhenABigNodeJoins() throws Exception {
        String pg = group("PACK", List.of(new Resources().set("GPU", 8 * Resources.UNIT)));
        String message = waitingMessage();
        assertThat(message).contains("can never be placed").contains("GPU").contains("4").contains("10.0.0.1");
        Node big = FakeNodes.node("10.0.0.9", 8, 8, link, false);
        cluster.addNode(big);
        assertThat(cluster.groups().table(pg).state()).isEqualTo(GroupState.CREATED);
    }

    @Test
    void aGroupPinnedToAnUnknownNodeIpNamesTheIpTheClusterIpsAndTheFix() throws Exception {
        String pg = group("PACK", List.of(new Resources().set("CPU", Resources.UNIT),
                new Resources().set("CPU", Resources.UNIT).set("node:10.9.9.9", Resources.toUnits(0.001))));
        String message = waitingMessage();
        assertThat(message).contains("can never be placed")
                .contains("bundle 1 asks for node:10.9.9.9 but no node has IP 10.9.9.9")
                .contains("the cluster's node IPs are 10.0.0.1, 10.0.0.2, 10.0.0.3")
                .contains("--node-ip-address 10.9.9.9").contains("set VLLM_HOST_IP to one of the IPs the cluster knows");
        assertThat(cluster.groups().table(pg).waitingReason()).contains("no node has IP 10.9.9.9");
        cluster.addNode(FakeNodes.node("10.9.9.9", 0, 2, link, false));
        assertThat(cluster.groups().table(pg).state()).isEqualTo(GroupState.CREATED);
    }

    @Test
    void anActorPinnedToAnUnknownNodeIpWarnsItsOwnerWithTheClusterIpsAndTheFix() throws Exception {
        ActorOptions pinned = new ActorOptions(new Resources().set("node:10.9.9.9", Resources.toUnits(0.001)), null, -1,
                Map.of(), RuntimeEnv.NONE, 1, false, false, List.of());
        cluster.createActor(driver, Ids.randomHex(16), "Pinned", null, null, pinned, new byte[0], false);
        String warning = driver.events(ClientEvent.Warning.class).getLast().message();
        assertThat(warning).startsWith("Actor Pinned (").contains("asks for node:10.9.9.9 but no node has IP 10.9.9.9")
                .contains("10.0.0.1, 10.0.0.2, 10.0.0.3").contains("--node-ip-address 10.9.9.9");
    }

    @Test
    void aGroupPinnedToAKnownNodeIpThatIsFullSaysItWaitsForRoom() throws Exception {
        group("PACK", List.of(new Resources().set("CPU", 8 * Resources.UNIT).set("node:10.0.0.2", Resources.UNIT)));
        group("PACK", List.of(new Resources().set("CPU", Resources.UNIT).set("node:10.0.0.2", Resources.toUnits(0.001))));
        String message = waitingMessage();
        assertThat(message).doesNotContain("can never be placed").doesNotContain("VLLM_HOST_IP").contains("CPU");
    }

    @Test
    void actorsInBundlesGetConcreteGpuIdsAndHalvesShare() throws Exception {
        String pg = group("PACK", gpus(2, 1));
        ActorOptions half = options(pg, 0, 0.5);
        cluster.createActor(driver, Ids.randomHex(16), "A", null, null, half, new byte[0], false);
        cluster.createActor(driver, Ids.randomHex(16), "A", null, null, half, new byte[0], false);
        cluster.createActor(driver, Ids.randomHex(16), "A", null, null, options(pg, 1, 1), new byte[0], false);
        assertThat(link.started).hasSize(3);
        assertThat(link.started.get(0).gpuIds()).isEqualTo(link.started.get(1).gpuIds());
        assertThat(link.started.get(2).gpuIds()).hasSize(1).doesNotContainAnyElementsOf(link.started.get(0).gpuIds());
    }

    @Test
    void actorThatCanNeverFitItsBundleIsRefused() throws Exception {
        String pg = group("PACK", gpus(2, 1));
        assertThatThrownBy(() -> cluster.createActor(driver, Ids.randomHex(16), "A", null, null, options(pg, 0, 2), new byte[0], false))
                .isInstanceOf(RequestException.class).hasMessageContaining("can never fit");
        assertThatThrownBy(() -> cluster.createActor(driver, Ids.randomHex(16), "A", null, null, options(pg, 5, 1), new byte[0], false))
                .hasMessageContaining("out of range");
    }

    @Test
    void removingAGroupKillsItsActorsAndFreesResources() throws Exception {
        String pg = group("STRICT_PACK", gpus(4, 1));
        String actorId = Ids.randomHex(16);
        cluster.createActor(driver, actorId, "A", null, null, options(pg, 0, 1), new byte[0], false);
        cluster.groups().remove(pg);
        assertThat(link.killed).extracting(ActorRecord::id).containsExactly(actorId);
        cluster.onActorExited(actorId, 137, List.of(), 0);
        assertThat(availableGpus()).isEqualTo(10 * Resources.UNIT);
        String oid = Ids.randomHex(28);
        cluster.call(driver, actorId, oid, "m", null, new FakeNodes.Message(oid));
        assertThat(driver.answers().getLast()).isInstanceOfSatisfying(ClientEvent.ActorDied.class,
                died -> assertThat(died.message()).contains("placement group was removed"));
    }

    @Test
    void callsBeforeAliveAreQueuedAndFailedOnDeath() throws Exception {
        String actorId = Ids.randomHex(16);
        cluster.createActor(driver, actorId, "A", null, null, options(null, -1, 1), new byte[0], false);
        for (int i = 0; i < 3; i++) {
            String oid = Ids.randomHex(28);
            cluster.call(driver, actorId, oid, "m", null, new FakeNodes.Message(oid));
        }
        cluster.onActorExited(actorId, 128 + 9, List.of("Traceback", "MemoryError"), 1);
        assertThat(driver.answers()).hasSize(3).allSatisfy(a -> assertThat(a).isInstanceOf(ClientEvent.ActorDied.class));
        List<String> messages = driver.events(ClientEvent.Failure.class).stream().map(ClientEvent.Failure::message).toList();
        assertThat(messages).hasSize(3).allSatisfy(m -> assertThat(m).contains("SIGKILL").contains("OOM killer").contains("MemoryError"));
        assertThat(availableGpus()).isEqualTo(10 * Resources.UNIT);
    }

    private static ActorOptions options(String pg, int bundle, double gpus) {
        return new ActorOptions(new Resources().set("GPU", Resources.toUnits(gpus)), pg, bundle, Map.of(),
                RuntimeEnv.NONE, 1, false, false, List.of());
    }

    private String waitingMessage() {
        return driver.events(ClientEvent.GroupWaiting.class).getLast().message();
    }

    /** The GPUs free on the live nodes (ray.available_resources()'s "GPU", in units). */
    private long availableGpus() {
        return cluster.snapshot().nodes().stream().filter(NodeSnapshot::alive).mapToLong(n -> n.available().get("GPU")).sum();
    }
}
