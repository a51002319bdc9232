package beam.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import beam.util.ManualScheduler;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The domain reads time only on the clock the cluster is made with: moved by hand here, the
 * placement groups' warning cadence, a group's age and a node's start time follow it, with no
 * sleep and no race against the machine's clock.
 */
class DomainClockTest {
    /** How often the daemon ticks the groups (Daemon's GROUP_TICK_MILLIS): the cadence is checked at each tick. */
    private static final long TICK_MILLIS = 1_000;
    private static final long WARN_EVERY_MILLIS = PlacementGroups.WARN_EVERY_NANOS / 1_000_000;

    private final ManualScheduler clock = new ManualScheduler();
    private final FakeNodes.RecordingClient owner = new FakeNodes.RecordingClient();
    private Cluster cluster;

    @BeforeEach
    void oneSmallNodeTicking() {
        cluster = new Cluster("ns", clock);
        cluster.addNode(FakeNodes.node("10.0.0.1", 0, 1, new FakeNodes.Link(), true));
        clock.every(TICK_MILLIS, cluster.groups()::tick);
    }

    private int warnings() {
        return owner.events(ClientEvent.GroupWaiting.class).size();
    }

    @Test
    void aPendingGroupsOwnerIsToldAtOnceThenEveryTenSecondsOfTheClusterClock() throws Exception {
        cluster.groups().create(owner, "pg1", "", "PACK", List.of(new Resources().set("CPU", 2 * Resources.UNIT)), false);
        assertThat(warnings()).as("told why it waits when it is created").isEqualTo(1);

        clock.advance(WARN_EVERY_MILLIS - TICK_MILLIS);
        assertThat(warnings()).as("not told again before 10 s of the cluster's clock (9 ticks ran)").isEqualTo(1);
        clock.advance(TICK_MILLIS);
        assertThat(warnings()).as("told again at 10 s").isEqualTo(2);
        clock.advance(WARN_EVERY_MILLIS - TICK_MILLIS);
        assertThat(warnings()).as("not again before 20 s").isEqualTo(2);
        clock.advance(TICK_MILLIS);
        assertThat(warnings()).as("again at 20 s").isEqualTo(3);
        assertThat(cluster.groups().table("pg1").waitedSeconds()).as("its age is read on the same clock")
                .isEqualTo(2.0 * WARN_EVERY_MILLIS / 1_000);

        cluster.addNode(FakeNodes.node("10.0.0.2", 0, 2, new FakeNodes.Link(), false));
        assertThat(owner.events(ClientEvent.GroupReady.class)).as("placed once a node that holds it joins").hasSize(1);
        clock.advance(3 * WARN_EVERY_MILLIS);
        assertThat(warnings()).as("a placed group is not warned about").isEqualTo(3);
        assertThat(cluster.groups().table("pg1").creationLatencyMs()).as("placing it took 20 s of the cluster's clock")
                .isEqualTo(2.0 * WARN_EVERY_MILLIS);
    }

    @Test
    void aNodesStartTimeIsItsJoinOnTheClusterClock() {
        clock.advance(5_000);
        long joined = clock.wallMillis();
        cluster.addNode(FakeNodes.node("10.0.0.3", 0, 1, new FakeNodes.Link(), false));
        assertThat(cluster.liveNodeSnapshots()).extracting(NodeSnapshot::startedMillis)
                .containsExactly(joined - 5_000, joined);
    }
}
