package beam.cluster;

import beam.util.Scheduler;
import static org.assertj.core.api.Assertions.assertThat;

import beam.util.Ids;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Calls as records of the head (Ray's task list): waiting for a starting actor, running and
 * queued behind by max_concurrency, ended (returned, raised, the actor died), the bounded
 * ring of ended ones, long calls, and the actor's running call.
 */
class CallRecordsTest {
    private Cluster cluster;
    private final FakeNodes.RecordingClient owner = new FakeNodes.RecordingClient();

    @BeforeEach
    void setUp() {
        cluster = new Cluster("ns", Scheduler.system());
        cluster.addNode(FakeNodes.node("10.0.0.1", 0, 8, new FakeNodes.Link(), true));
    }

    private String startingActor(int maxConcurrency) throws RequestException {
        String id = Ids.randomHex(16);
        ActorOptions options = new ActorOptions(new Resources().set("CPU", Resources.UNIT), null, -1, Map.of(),
                RuntimeEnv.NONE, maxConcurrency, false, false, List.of());
        cluster.createActor(owner, id, "Worker", null, "ns", options, new byte[0], false);
        cluster.onActorProcessStarted(id, 4242);
        cluster.onWorkerHello(id, new FakeNodes.RecordingClient());
        return id;
    }

    private String call(String actorId, String method, String label) {
        String oid = Ids.randomHex(28);
        cluster.call(owner, actorId, oid, method, label, new FakeNodes.Message(oid));
        return oid;
    }

    private void result(String actorId, String oid, boolean ok) {
        cluster.onResult(actorId, oid, ok, new FakeNodes.Message(oid));
    }

    private static CallSnapshot byTask(ClusterSnapshot s, String oid) {
        return s.calls().stream().filter(c -> c.taskId().equals(oid.substring(0, 48))).findFirst().orElseThrow();
    }

    @Test
    void aCallWaitsForItsActorThenRunsWithItsLabel() throws Exception {
        String actor = startingActor(1);
        String oid = call(actor, "execute_method", "init_device");
        CallSnapshot waiting = byTask(cluster.snapshot(), oid);
        assertThat(waiting.state()).isEqualTo(CallSnapshot.State.WAITING_FOR_ACTOR);
        assertThat(waiting.name()).isEqualTo("Worker.execute_method");
        assertThat(waiting.label()).isEqualTo("init_device");
        assertThat(waiting.startMillis()).isZero();

        cluster.onActorReady(actor, "");
        ClusterSnapshot s = cluster.snapshot();
        CallSnapshot running = byTask(s, oid);
        assertThat(running.state()).isEqualTo(CallSnapshot.State.RUNNING);
        assertThat(running.pid()).isEqualTo(4242);
        assertThat(running.nodeIp()).isEqualTo("10.0.0.1");
        assertThat(running.startMillis()).isGreaterThanOrEqualTo(running.submitMillis());
        assertThat(s.actors().get(0).runningCall()).isNotNull()
                .satisfies(c -> assertThat(c.label()).isEqualTo("init_device"));
    }

    @Test
    void aSequentialActorRunsTheOldestCallAndTheRestWaitBehindIt() throws Exception {
        String actor = startingActor(1);
        cluster.onActorReady(actor, "");
        String first = call(actor, "nap", null);
        String second = call(actor, "nap", null);
        String third = call(actor, "boom", null);
        ClusterSnapshot s = cluster.snapshot();
        assertThat(List.of(byTask(s, first).state(), byTask(s, second).state(), byTask(s, third).state()))
                .containsExactly(CallSnapshot.State.RUNNING, CallSnapshot.State.QUEUED, CallSnapshot.State.QUEUED);

        result(actor, first, true);
        s = cluster.snapshot();
        CallSnapshot done = byTask(s, first);
        assertThat(done.state()).isEqualTo(CallSnapshot.State.FINISHED);
        assertThat(done.endMillis()).isGreaterThanOrEqualTo(done.startMillis());
        assertThat(done.errorType()).isNull();
        assertThat(byTask(s, second).state()).isEqualTo(CallSnapshot.State.RUNNING);
        assertThat(byTask(s, second).startMillis()).isGreaterThanOrEqualTo(done.endMillis());
        assertThat(s.actors().get(0).runningCall().taskId()).isEqualTo(second.substring(0, 48));

        result(actor, second, true);
        result(actor, third, false);
        CallSnapshot failed = byTask(cluster.snapshot(), third);
        assertThat(failed.state()).isEqualTo(CallSnapshot.State.FAILED);
        assertThat(failed.errorType()).isEqualTo("TASK_EXECUTION_EXCEPTION");
        assertThat(cluster.snapshot().actors().get(0).runningCall()).isNull();
    }

    @Test
    void maxConcurrencyCallsRunAtOnce() throws Exception {
        String actor = startingActor(2);
        cluster.onActorReady(actor, "");
        String a = call(actor, "m", null), b = call(actor, "m", null), c = call(actor, "m", null);
        ClusterSnapshot s = cluster.snapshot();
        assertThat(List.of(byTask(s, a).state(), byTask(s, b).state(), byTask(s, c).state()))
                .containsExactly(CallSnapshot.State.RUNNING, CallSnapshot.State.RUNNING, CallSnapshot.State.QUEUED);
    }

    @Test
    void callsOfAnActorThatDiesFailAsActorDied() throws Exception {
        String actor = startingActor(1);
        String queued = call(actor, "m", null);
        cluster.kill(actor);
        CallSnapshot failed = byTask(cluster.snapshot(), queued);
        assertThat(failed.state()).isEqualTo(CallSnapshot.State.FAILED);
        assertThat(failed.errorType()).isEqualTo("ACTOR_DIED");
        assertThat(failed.startMillis()).isZero(); // it never reached the worker
    }

    @Test
    void onlyTheMostRecentEndedCallsAreKept() throws Exception {
        String actor = startingActor(1);
        cluster.onActorReady(actor, "");
        String last = null;
        for (int i = 0; i < CallLog.MAX_ENDED + 5; i++) {
            last = call(actor, "m", null);
            result(actor, last, true);
        }
        List<CallSnapshot> calls = cluster.snapshot().calls();
        assertThat(calls).hasSize(CallLog.MAX_ENDED);
        assertThat(calls.get(0).taskId()).isEqualTo(last.substring(0, 48)); // newest first
    }

    @Test
    void aCallPastTheThresholdIsLong() throws Exception {
        cluster.longCallMillis(50);
        String actor = startingActor(1);
        cluster.onActorReady(actor, "");
        String stuck = call(actor, "nap", "init_device");
        call(actor, "nap", null); // queued behind it: not running, so never long
        // ages counted from the call's own start, not from a wall clock read after it (a loaded
        // machine may take the whole 50 ms between the call and such a read)
        long started = cluster.snapshot().calls().stream().filter(c -> stuck.startsWith(c.taskId()))
                .findFirst().orElseThrow().startMillis();
        assertThat(cluster.snapshot().longCalls(started + 49)).isEmpty();
        assertThat(cluster.snapshot().longCalls(started + 50)).singleElement()
                .satisfies(c -> assertThat(c.taskId()).isEqualTo(stuck.substring(0, 48)));
    }
}
