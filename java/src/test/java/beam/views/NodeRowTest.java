package beam.views;

import beam.util.Scheduler;
import static org.assertj.core.api.Assertions.assertThat;

import beam.cluster.AcceleratorKind;
import beam.cluster.Cluster;
import beam.cluster.Node;
import beam.cluster.NodeAccelerator;
import beam.cluster.NodeControl;
import beam.cluster.Resources;
import beam.codec.FrameCodec;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A node row starts with Ray's keys in Ray's order (the recorded ray.nodes() entry in
 * tests/golden/ray-2.60-shapes.json), and {@code cluster_state} names them: the Python shim
 * keeps exactly those (tests/e2e/test_shapes.py compares its ray.nodes() with the same file).
 */
class NodeRowTest {
    private static final NodeControl NO_LINK = null;

    @Test
    void rowsStartWithRaysKeysAndTheStateNamesThem() throws Exception {
        JsonNode shapes = FrameCodec.json().readTree(Files.readAllBytes(Path.of("..", "tests", "golden",
                "ray-2.60-shapes.json")));
        List<String> rays = new ArrayList<>();
        shapes.path("nodes").get(0).fieldNames().forEachRemaining(rays::add);
        assertThat(ClusterViews.RAY_NODE_KEYS).containsExactlyElementsOf(rays);

        Cluster cluster = new Cluster("ns", Scheduler.system());
        Resources total = new Resources().set("GPU", 2 * Resources.UNIT).set("CPU", 4 * Resources.UNIT);
        var gpu = new NodeAccelerator(AcceleratorKind.NVIDIA_GPU, List.of("0", "1"), null, NodeAccelerator.DECLARED);
        cluster.addNode(new Node("n1", "10.0.0.1", "host1", true, total, Map.of("GPU", gpu), NO_LINK));
        ObjectNode state = ClusterViews.state(cluster);
        List<String> named = new ArrayList<>();
        state.path("ray_node_keys").forEach(k -> named.add(k.asText()));
        assertThat(named).isEqualTo(ClusterViews.RAY_NODE_KEYS);
        List<String> row = new ArrayList<>();
        state.path("nodes").get(0).fieldNames().forEachRemaining(row::add);
        assertThat(row.subList(0, ClusterViews.RAY_NODE_KEYS.size())).isEqualTo(ClusterViews.RAY_NODE_KEYS);
        assertThat(row).contains("Available", "IsHead", "GpuIds", "Accelerators", "BeamFacts");
    }
}
