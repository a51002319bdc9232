package beam.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import beam.util.Ids;
import beam.util.ManualScheduler;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A worker's exit is reported by its node on another path than its connection, so the report
 * can overtake the worker's last results (a loaded machine: the reaper runs before the
 * connection's reader). The last handle dropped right after {@code ray.get(A.remote().f.remote())}
 * is such a case: the worker answers {@code f}, runs {@code __ray_terminate__} and exits 0.
 * A result written before the exit must reach its caller, not be failed as "died".
 */
class WorkerExitOrderTest {
    private final ManualScheduler timers = new ManualScheduler();
    private final FakeNodes.RecordingClient driver = new FakeNodes.RecordingClient();
    private final FakeNodes.RecordingClient worker = new FakeNodes.RecordingClient();
    private Cluster cluster;
    private String actorId;

    @BeforeEach
    void aliveActor() throws Exception {
        cluster = new Cluster("ns", timers);
        Node node = FakeNodes.node("10.0.0.1", 1, 4, new FakeNodes.Link(), true);
        cluster.addNode(node);
        actorId = Ids.randomHex(16);
        cluster.createActor(driver, actorId, "A", null, null, new ActorOptions(
                new Resources().set("CPU", Resources.UNIT), null, -1, Map.of(),
                RuntimeEnv.NONE, 1, false, false, List.of()), new byte[0], false);
        cluster.onActorProcessStarted(actorId, 4242);
        cluster.onWorkerHello(actorId, worker);
        cluster.onActorReady(actorId, "");
    }

    private String call() {
        String oid = Ids.randomHex(28);
        cluster.call(driver, actorId, oid, "f", null, new FakeNodes.Message(oid));
        return oid;
    }

    /** The oids of the results the driver got: answered ({@code ok}) or failed. */
    private List<String> results(boolean ok) {
        return ok ? driver.resultOids() : driver.events(ClientEvent.Failure.class).stream().map(ClientEvent.Failure::oid).toList();
    }

    private boolean dead() {
        return cluster.snapshot().actors().stream().noneMatch(a -> a.id().equals(actorId) && a.state() != ActorRecord.State.DEAD);
    }

    @Test
    void aResultReadAfterTheExitReportReachesItsCaller() {
        String oid = call();
        cluster.releaseHandle(driver, actorId); // queues __ray_terminate__ behind f
        cluster.onActorExited(actorId, 0, List.of(), 0); // the reaper was first
        assertThat(results(false)).as("no call fails while the worker's connection may still hold results").isEmpty();
        cluster.onResult(actorId, oid, true, new FakeNodes.Message(oid));
        assertThat(results(true)).containsExactly(oid);
        cluster.onWorkerDisconnected(actorId);
        assertThat(dead()).as("the exit applies once the connection closed").isTrue();
    }

    @Test
    void aCallTheWorkerNeverAnsweredFailsOnceItsConnectionCloses() {
        String oid = call();
        cluster.onActorExited(actorId, 1, List.of("boom"), 0);
        assertThat(results(false)).isEmpty();
        cluster.onWorkerDisconnected(actorId);
        assertThat(driver.answers()).singleElement().isInstanceOfSatisfying(ClientEvent.Failure.class, f -> {
            assertThat(f.oid()).isEqualTo(oid);
            assertThat(f.message()).contains("boom");
        });
        assertThat(dead()).isTrue();
    }

    @Test
    void aConnectionThatStaysOpenDelaysTheExitOnlyForTheGrace() {
        String oid = call();
        cluster.onActorExited(actorId, 137, List.of(), 0); // a child process inherited the socket
        timers.advance(Cluster.WORKER_EXIT_GRACE_MILLIS - 1);
        assertThat(driver.answers()).isEmpty();
        timers.advance(1);
        assertThat(driver.answers()).singleElement()
                .isInstanceOfSatisfying(ClientEvent.Failure.class, f -> assertThat(f.oid()).isEqualTo(oid));
        assertThat(dead()).isTrue();
    }

    @Test
    void anActorKilledFirstIsDeadAtOnceAndItsExitOnlyFreesItsResources() throws Exception {
        call();
        cluster.kill(actorId);
        assertThat(driver.answers()).hasSize(1);
        cluster.onActorExited(actorId, 137, List.of(), 0);
        assertThat(timers.pending()).as("no grace for an actor already dead").isZero();
        assertThat(cluster.snapshot().nodes().getFirst().available().get("CPU")).isEqualTo(4 * Resources.UNIT);
    }
}
