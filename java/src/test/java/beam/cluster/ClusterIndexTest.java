package beam.cluster;

import beam.util.Scheduler;
import static org.assertj.core.api.Assertions.assertThat;

import beam.util.Ids;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The indexes that let a client leaving, a node lost or a group removed cost their own
 * actors and groups ({@link ActorIndex}, {@link GroupIndex}): each event touches exactly
 * what it should, and nothing is left behind in an index once its objects are gone.
 */
class ClusterIndexTest {
    private Cluster cluster;
    private FakeNodes.Link link;
    private Node a;
    private Node b;
    private final FakeNodes.RecordingClient owner = new FakeNodes.RecordingClient();

    @BeforeEach
    void setUp() {
        cluster = new Cluster("ns", Scheduler.system());
        link = new FakeNodes.Link();
        a = FakeNodes.node("10.0.0.1", 4, 8, link, true);
        b = FakeNodes.node("10.0.0.2", 4, 8, link, false);
        cluster.addNode(a);
        cluster.addNode(b);
    }

    private static ActorOptions on(Node node) {
        return new ActorOptions(new Resources().set("node:" + node.ip, Resources.toUnits(0.01)), null, -1, Map.of(),
                RuntimeEnv.NONE, 1, false, false, List.of());
    }

    /** An actor on {@code node}, started, its worker connected; ALIVE unless {@code ready} is false. */
    private String actor(Client by, Node node, FakeNodes.RecordingClient worker, boolean ready) throws RequestException {
        String id = Ids.randomHex(16);
        cluster.createActor(by, id, "A", null, null, on(node), new byte[0], false);
        cluster.onActorProcessStarted(id, 1000 + link.started.size());
        cluster.onWorkerHello(id, worker);
        if (ready) cluster.onActorReady(id, "");
        return id;
    }

    private static String call(Cluster cluster, Client caller, String actorId) {
        String oid = Ids.randomHex(28);
        cluster.call(caller, actorId, oid, "m", null, new FakeNodes.Message(oid));
        return oid;
    }

    /** The oids of the calls a worker was told to run. */
    private static List<String> runCalls(FakeNodes.RecordingClient worker) {
        return worker.events(ClientEvent.RunCall.class).stream().map(ClientEvent.RunCall::oid).toList();
    }

    /** The oids of every answer a caller got: forwarded results and failures alike. */
    private static List<String> answered(FakeNodes.RecordingClient caller) {
        return caller.answers().stream().map(e -> e instanceof ClientEvent.Failure f ? f.oid()
                : ((FakeNodes.Message) ((ClientEvent.CallResult) e).result()).oid()).toList();
    }

    private void result(String actorId, String oid) {
        cluster.onResult(actorId, oid, true, new FakeNodes.Message(oid));
    }

    @Test
    void aDepartingClientsCallsAreDroppedAndNoOneElses() throws Exception {
        FakeNodes.RecordingClient leaving = new FakeNodes.RecordingClient();
        FakeNodes.RecordingClient staying = new FakeNodes.RecordingClient();
        FakeNodes.RecordingClient aliveWorker = new FakeNodes.RecordingClient();
        FakeNodes.RecordingClient startingWorker = new FakeNodes.RecordingClient();
        String alive = actor(owner, a, aliveWorker, true);
        String starting = actor(owner, b, startingWorker, false);
        String leavingInFlight = call(cluster, leaving, alive);
        String stayingInFlight = call(cluster, staying, alive);
        String leavingQueued = call(cluster, leaving, starting);
        String stayingQueued = call(cluster, staying, starting);
        assertThat(cluster.index.calledBy(leaving)).extracting(ActorRecord::id).containsExactlyInAnyOrder(alive, starting);

        cluster.onClientGone(leaving);

        assertThat(cluster.index.calledBy(leaving)).isEmpty();
        assertThat(cluster.index.calledBy(staying)).extracting(ActorRecord::id).containsExactlyInAnyOrder(alive, starting);
        result(alive, leavingInFlight);
        result(alive, stayingInFlight);
        assertThat(leaving.answers()).isEmpty(); // no longer waited for: not told
        assertThat(answered(staying)).containsExactly(stayingInFlight);
        cluster.onActorReady(starting, "");
        assertThat(runCalls(startingWorker)).containsExactly(stayingQueued).doesNotContain(leavingQueued);
        assertThat(runCalls(aliveWorker)).containsExactly(leavingInFlight, stayingInFlight); // sent before it left
    }

    @Test
    void aClientThatCalledAgainAfterAnotherIsStillIndexedOnce() throws Exception {
        FakeNodes.RecordingClient first = new FakeNodes.RecordingClient();
        FakeNodes.RecordingClient second = new FakeNodes.RecordingClient();
        String id = actor(owner, a, new FakeNodes.RecordingClient(), true);
        call(cluster, first, id);
        call(cluster, second, id); // the actor's last caller changes, then changes back
        String again = call(cluster, first, id);
        cluster.onClientGone(second);
        assertThat(cluster.index.calledBy(first)).extracting(ActorRecord::id).containsExactly(id);
        result(id, again);
        assertThat(answered(first)).containsExactly(again);
    }

    @Test
    void aRetiredActorLeavesNoEntryForItsLongLivedCaller() throws Exception {
        FakeNodes.RecordingClient driver = new FakeNodes.RecordingClient();
        for (int i = 0; i < 50; i++) {
            String id = actor(driver, i % 2 == 0 ? a : b, new FakeNodes.RecordingClient(), true);
            result(id, call(cluster, driver, id));
            assertThat(cluster.index.calledBy(driver)).hasSize(1);
            cluster.kill(id);
            cluster.onActorExited(id, 137, List.of(), 0); // its process is gone: the record retires
        }
        assertThat(cluster.actorCount()).isZero();
        assertThat(cluster.index.calledBy(driver)).isEmpty();
        assertThat(cluster.index.keys()).isZero(); // no owner, node or caller entry left either
    }

    @Test
    void aLostNodeKillsExactlyItsActors() throws Exception {
        FakeNodes.RecordingClient driver = new FakeNodes.RecordingClient();
        FakeNodes.RecordingClient workerOnB = new FakeNodes.RecordingClient();
        String onA = actor(driver, a, new FakeNodes.RecordingClient(), true);
        String startingOnA = actor(driver, a, new FakeNodes.RecordingClient(), false);
        String onB = actor(driver, b, workerOnB, true);
        String inFlightOnA = call(cluster, driver, onA);

        cluster.onNodeLost(a.id, "test");

        assertThat(answered(driver)).containsExactly(inFlightOnA);
        assertThat(driver.events(ClientEvent.Failure.class).getFirst().message()).contains("10.0.0.1");
        assertThat(cluster.liveActors()).extracting(ActorRecord::id).containsExactly(onB);
        assertThat(cluster.actors()).extracting(ActorRecord::id).doesNotContain(onA, startingOnA); // retired with the node
        String toB = call(cluster, driver, onB);
        assertThat(runCalls(workerOnB)).containsExactly(toB);
        cluster.onNodeLost(b.id, "test");
        assertThat(cluster.actorCount()).isZero();
        assertThat(cluster.index.keys()).isZero(); // owner, node and caller entries left with the actors
    }

    @Test
    void groupsOfADepartingOwnerGoAndItsWatchesEndWithoutTouchingOthers() throws Exception {
        FakeNodes.RecordingClient leaving = new FakeNodes.RecordingClient();
        FakeNodes.RecordingClient staying = new FakeNodes.RecordingClient();
        PlacementGroups groups = cluster.groups();
        String tooBig = Ids.randomHex(18); // pending for ever: its watchers stay
        groups.create(leaving, tooBig, "", "PACK", List.of(new Resources().set("GPU", 16 * Resources.UNIT)), false);
        String othersPending = Ids.randomHex(18);
        groups.create(staying, othersPending, "", "PACK", List.of(new Resources().set("GPU", 16 * Resources.UNIT)), false);
        groups.watch(leaving, othersPending);
        String placed = Ids.randomHex(18);
        groups.create(staying, placed, "", "PACK", List.of(new Resources().set("GPU", Resources.UNIT)), false);
        groups.watch(staying, tooBig);

        cluster.onClientGone(leaving);

        assertThat(groups.table(tooBig).state()).isEqualTo(GroupState.REMOVED);
        assertThat(staying.events(ClientEvent.GroupRemoved.class)).extracting(ClientEvent.GroupRemoved::groupId).containsExactly(tooBig); // it watched the departed owner's group
        assertThat(groups.table(othersPending).state()).isEqualTo(GroupState.PENDING);
        assertThat(groups.table(placed).state()).isEqualTo(GroupState.CREATED);
        groups.remove(othersPending);
        assertThat(leaving.events(ClientEvent.GroupRemoved.class)).isEmpty(); // it left before: not told
        assertThat(staying.events(ClientEvent.GroupRemoved.class)).extracting(ClientEvent.GroupRemoved::groupId).containsExactly(tooBig, othersPending);
        groups.remove(placed);
        assertThat(groups.index.keys()).isZero();
    }

    @Test
    void aLostNodeReschedulesExactlyTheGroupsWithABundleOnIt() throws Exception {
        FakeNodes.RecordingClient driver = new FakeNodes.RecordingClient();
        PlacementGroups groups = cluster.groups();
        String spanning = Ids.randomHex(18); // 6 GPUs: a's 4, then 2 of b's
        groups.create(driver, spanning, "", "PACK", Collections.nCopies(6, new Resources().set("GPU", Resources.UNIT)), false);
        String onBOnly = Ids.randomHex(18);
        groups.create(driver, onBOnly, "", "STRICT_PACK", List.of(new Resources().set("GPU", 2 * Resources.UNIT)), false);
        assertThat(groups.table(onBOnly).bundleNodes().get(0)).isEqualTo(b.id);

        cluster.onNodeLost(a.id, "test");

        assertThat(groups.table(spanning).state()).isEqualTo(GroupState.RESCHEDULING);
        assertThat(groups.table(onBOnly).state()).isEqualTo(GroupState.CREATED);
        cluster.onNodeLost(b.id, "test");
        assertThat(groups.table(onBOnly).state()).isEqualTo(GroupState.RESCHEDULING);
        groups.remove(spanning);
        groups.remove(onBOnly);
        assertThat(groups.index.keys()).isZero();
    }
}
