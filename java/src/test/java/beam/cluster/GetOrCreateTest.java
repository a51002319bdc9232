package beam.cluster;

import beam.util.Scheduler;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import beam.util.Ids;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Cluster#createActor} with get_if_exists: the head decides under its lock, so many
 * creators of one name at once get one actor; without it a taken name is refused as Ray does.
 */
class GetOrCreateTest {
    private Cluster cluster;
    private final FakeNodes.RecordingClient owner = new FakeNodes.RecordingClient();

    @BeforeEach
    void setUp() {
        cluster = new Cluster("ns", Scheduler.system());
        cluster.addNode(FakeNodes.node("10.0.0.1", 2, 4, new FakeNodes.Link(), true));
    }

    private ActorRecord create(String name, boolean getIfExists) throws RequestException {
        ActorOptions options = new ActorOptions(new Resources(), null, -1, Map.of(),
                RuntimeEnv.NONE, 1, false, true, List.of());
        return cluster.createActor(owner, Ids.randomHex(16), "Keeper", name, "ns", options, new byte[0], getIfExists);
    }

    @Test
    void concurrentGetOrCreateYieldsOneActor() throws Exception {
        CyclicBarrier start = new CyclicBarrier(10);
        Set<String> ids = ConcurrentHashMap.newKeySet();
        List<Throwable> errors = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await(30, TimeUnit.SECONDS);
                    ids.add(create("one", true).id());
                } catch (Exception e) {
                    synchronized (errors) {
                        errors.add(e);
                    }
                }
            }));
        }
        for (Thread t : threads) t.join(TimeUnit.SECONDS.toMillis(60));
        assertThat(errors).isEmpty();
        assertThat(ids).hasSize(1);
        assertThat(cluster.actorByName("one", "ns").id()).isEqualTo(ids.iterator().next());
    }

    @Test
    void aTakenNameIsRefusedWithoutGetIfExistsAndFreedWhenItsActorDies() throws Exception {
        ActorRecord first = create("taken", false);
        assertThat(create("taken", true).id()).isEqualTo(first.id());
        assertThatThrownBy(() -> create("taken", false))
                .isInstanceOf(RequestException.class)
                .hasMessage("The name taken (namespace=ns) is already taken. Please use a different name or get the "
                        + "existing actor using ray.get_actor('taken', namespace='ns')");
        cluster.kill(first.id());
        assertThat(create("taken", true).id()).isNotEqualTo(first.id());
    }
}
