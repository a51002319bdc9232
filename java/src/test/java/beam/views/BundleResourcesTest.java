package beam.views;

import static org.assertj.core.api.Assertions.assertThat;

import beam.cluster.ActorOptions;
import beam.cluster.Cluster;
import beam.cluster.FakeNodes;
import beam.cluster.Resources;
import beam.cluster.RuntimeEnv;
import beam.util.Ids;
import beam.util.Scheduler;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A placed group's resources in cluster_resources() / available_resources(), named and sized as
 * Ray's: the state view adds them beside the nodes' own (a view test, on the domain's test doubles).
 */
class BundleResourcesTest {
    @Test
    void aPlacedGroupAddsRaysBundleResourcesActorsTakeThemAndRemovalDropsThem() throws Exception {
        Cluster cluster = new Cluster("ns", Scheduler.system());
        FakeNodes.Link link = new FakeNodes.Link();
        FakeNodes.RecordingClient driver = new FakeNodes.RecordingClient();
        cluster.addNode(FakeNodes.node("10.0.0.1", 4, 8, link, true));
        String pg = Ids.randomHex(18);
        cluster.createGroup(driver, pg, "", "PACK", List.of(
                new Resources().set("GPU", Resources.UNIT).set("CPU", Resources.UNIT),
                new Resources().set("GPU", Resources.UNIT)), List.of(), false);

        JsonNode total = ClusterViews.state(cluster).get("total");
        assertThat(total.get("GPU").asDouble()).isEqualTo(4.0);
        assertThat(total.get("GPU_group_0_" + pg).asDouble()).isEqualTo(1.0);
        assertThat(total.get("GPU_group_1_" + pg).asDouble()).isEqualTo(1.0);
        assertThat(total.get("GPU_group_" + pg).asDouble()).isEqualTo(2.0);
        assertThat(total.get("CPU_group_0_" + pg).asDouble()).isEqualTo(1.0);
        assertThat(total.has("CPU_group_1_" + pg)).isFalse();
        assertThat(total.get("bundle_group_0_" + pg).asDouble()).isEqualTo(1000.0);
        assertThat(total.get("bundle_group_" + pg).asDouble()).isEqualTo(2000.0);

        cluster.createActor(driver, Ids.randomHex(16), "A", null, null, new ActorOptions(
                new Resources().set("GPU", Resources.UNIT), pg, 0, Map.of(), RuntimeEnv.NONE,
                1, false, false, List.of()), new byte[0], false);
        JsonNode available = ClusterViews.state(cluster).get("available");
        assertThat(available.get("GPU").asDouble()).isEqualTo(2.0);
        assertThat(available.has("GPU_group_0_" + pg)).as("a bundle resource at zero is left out, as Ray").isFalse();
        assertThat(available.get("GPU_group_" + pg).asDouble()).isEqualTo(1.0);
        assertThat(available.get("bundle_group_0_" + pg).asDouble()).isEqualTo(999.999);
        assertThat(available.get("bundle_group_1_" + pg).asDouble()).isEqualTo(1000.0);

        cluster.removeGroup(pg);
        assertThat(ClusterViews.state(cluster).get("total").toString()).doesNotContain("_group_");
    }
}
