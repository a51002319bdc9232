package beam.cluster;

import beam.util.Scheduler;
import static org.assertj.core.api.Assertions.assertThat;

import beam.util.Ids;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A group that lost a node re-places only the bundles that were there, and its strategy
 * still holds for the whole group: a STRICT_SPREAD group never ends with two bundles on one
 * node (it stays RESCHEDULING until a new node joins), a STRICT_PACK one goes back to where
 * its other bundles are.
 */
class GroupRescheduleTest {
    private final FakeNodes.Link link = new FakeNodes.Link();
    private final FakeNodes.RecordingClient driver = new FakeNodes.RecordingClient();
    private final Cluster cluster = new Cluster("ns", Scheduler.system());
    private Node a;
    private Node b;

    @BeforeEach
    void twoNodes() {
        a = FakeNodes.node("10.0.0.1", 0, 2, link, true);
        b = FakeNodes.node("10.0.0.2", 0, 2, link, false);
        cluster.addNode(a);
        cluster.addNode(b);
    }

    private String group(String strategy, int bundles) throws RequestException {
        String id = Ids.randomHex(18);
        List<Resources> cpus = Collections.nCopies(bundles, new Resources().set("CPU", Resources.UNIT));
        cluster.groups().create(driver, id, "", strategy, cpus, false);
        return id;
    }

    private GroupSnapshot table(String pg) throws RequestException {
        return cluster.groups().table(pg);
    }

    @Test
    void strictSpreadWaitsForANewNodeRatherThanDoublingUp() throws Exception {
        String pg = group("STRICT_SPREAD", 2);
        assertThat(table(pg).bundleNodes()).containsExactlyInAnyOrder(a.id, b.id);
        cluster.onNodeLost(b.id, "test");
        assertThat(table(pg).state()).as("the survivor a has a free CPU, but a holds the other bundle")
                .isEqualTo(GroupState.RESCHEDULING);
        Node c = FakeNodes.node("10.0.0.3", 0, 2, link, false);
        cluster.addNode(c);
        assertThat(table(pg).state()).isEqualTo(GroupState.CREATED);
        assertThat(table(pg).bundleNodes()).containsExactlyInAnyOrder(a.id, c.id);
    }

    @Test
    void softStrategiesRePlaceOnASurvivor() throws Exception {
        String pg = group("SPREAD", 2);
        cluster.onNodeLost(b.id, "test");
        assertThat(table(pg).state()).isEqualTo(GroupState.CREATED);
        assertThat(table(pg).bundleNodes()).containsExactly(a.id, a.id);
    }
}
