package beam.views;

import static org.assertj.core.api.Assertions.assertThat;

import beam.cluster.AcceleratorKind;
import beam.cluster.ActorHistory;
import beam.cluster.ActorRecord;
import beam.cluster.ActorSnapshot;
import beam.cluster.CallSnapshot;
import beam.cluster.ClusterSnapshot;
import beam.cluster.GroupSnapshot;
import beam.cluster.GroupState;
import beam.cluster.NodeAccelerator;
import beam.cluster.NodeSnapshot;
import beam.cluster.Resources;
import beam.codec.FrameCodec;
import beam.util.DeviceTelemetry;
import beam.views.StateTable.Column;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every table of the state API, built from a snapshot holding a record of each kind: a row has
 * exactly the declared columns, in declared order, each value of its column's type; and the
 * columns that are Ray's are Ray 2.60's (tests/golden/ray-2.60-state-columns.json, recorded
 * from ray.util.state.common by tests/golden/ray_state_columns.py) in Ray's order with Ray's
 * filterable and detail flags.
 */
class StateColumnsTest {
    /** Ray 2.60 columns beam does not serve yet (values not recorded from a real Ray): named so that none drops out unseen. */
    private static final Map<String, List<String>> NOT_SERVED = Map.of(
            "actors", List.of("num_restarts_due_to_node_preemption", "call_site", "label_selector", "fallback_strategy"),
            "placement_groups", List.of("topology_strategy", "topology_assignments"));

    private static final String NODE = "a".repeat(56);
    private static final String ACTOR = "b".repeat(24) + "01000000";
    private static final String GROUP = "c".repeat(36);

    private static ClusterSnapshot sample() {
        Resources gpus = new Resources().set("GPU", 2 * Resources.UNIT).set("CPU", 4 * Resources.UNIT);
        var gpu = new NodeAccelerator(AcceleratorKind.NVIDIA_GPU, List.of("0", "1"), null, NodeAccelerator.DECLARED);
        NodeSnapshot node = new NodeSnapshot(NODE, "10.0.0.1", "host1", true, true, null, gpus, gpus, Map.of("GPU", gpu),
                List.of("0", "1"), Map.of("ray.io/node_id", NODE), 1_000L, -1, null, DeviceTelemetry.NONE);
        ActorSnapshot alive = actor(ACTOR, ActorRecord.State.ALIVE, null);
        ActorSnapshot dead = actor("d".repeat(24) + "01000000", ActorRecord.State.DEAD, "killed by ray.kill");
        GroupSnapshot group = new GroupSnapshot(GROUP, "tp", "PACK", GroupState.CREATED,
                List.of(new Resources().set("GPU", Resources.UNIT)), List.of(NODE), 1.5, 1, null, 0, false);
        CallSnapshot call = new CallSnapshot("e".repeat(48), "Worker", "execute_method", "init_device",
                CallSnapshot.State.RUNNING, ACTOR, NODE, "10.0.0.1", 4242, 2_000L, 2_001L, 0, null);
        return new ClusterSnapshot("ns", List.of(node), List.of(alive), List.of(group),
                List.of(new ActorHistory.Death(dead, 3_000L)), Map.of("Worker", 1L), 1, List.of(call), 60_000);
    }

    private static ActorSnapshot actor(String id, ActorRecord.State state, String deathMessage) {
        return new ActorSnapshot(id, "Worker", null, state, 4242, NODE, "10.0.0.1", Map.of("GPU", List.of("0")), GROUP, 0,
                new Resources().set("GPU", Resources.UNIT), deathMessage, "01000000", "ns", false, null, null, "");
    }

    @Test
    void everyRowHasExactlyItsDeclaredColumnsEachOfItsType() {
        ClusterSnapshot snapshot = sample();
        for (StateTable<?> table : StateTables.standard().all()) checkRows(table, snapshot);
    }

    private static <T> void checkRows(StateTable<T> table, ClusterSnapshot snapshot) {
        List<T> records = table.records().apply(snapshot);
        assertThat(records).as("the sample snapshot has no record for table %s: add one to sample()", table.name()).isNotEmpty();
        List<String> declared = table.columns().stream().map(Column::name).toList();
        for (T record : records) {
            ObjectNode row = table.row(record);
            List<String> keys = new ArrayList<>();
            row.fieldNames().forEachRemaining(keys::add);
            assertThat(keys).as("the columns of a %s row", table.name()).containsExactlyElementsOf(declared);
            for (Column<T> c : table.columns()) {
                JsonNode v = row.get(c.name());
                boolean ofType = v.isNull() || switch (c.type()) {
                    case TEXT -> v.isTextual();
                    case INT -> v.isIntegralNumber();
                    case FLOAT -> v.isNumber();
                    case BOOL -> v.isBoolean();
                    case OTHER -> v.isContainerNode() || v.isValueNode();
                };
                assertThat(ofType).as("%s.%s is %s, declared %s", table.name(), c.name(), v, c.type()).isTrue();
            }
        }
    }

    @Test
    void theRowsCarryTheRecordsValues() {
        ClusterSnapshot snapshot = sample();
        List<ObjectNode> actors = StateRows.actors(snapshot).stream().map(StateTables.ACTORS::row).toList();
        assertThat(actors).extracting(a -> a.path("state").asText()).containsExactly("ALIVE", "DEAD");
        assertThat(actors.get(1).path("death_cause").path("actor_died_error_context").path("error_message").asText())
                .isEqualTo("killed by ray.kill");
        assertThat(actors.get(0).path("death_cause").isNull()).isTrue();
        assertThat(actors.get(0).path("accelerator_ids").toString()).isEqualTo("{\"GPU\":[\"0\"]}");
        ObjectNode task = TaskRows.TABLE.row(snapshot.calls().get(0));
        assertThat(task.path("worker_pid").asLong()).isEqualTo(4242);
        assertThat(task.path("worker_id").asText()).isEqualTo(ACTOR + String.format("%024x", 4242));
        assertThat(task.path("end_time_ms").isNull()).isTrue();
        assertThat(task.path("beam_label").asText()).isEqualTo("init_device");
    }

    @Test
    void raysColumnsAreRay260sInItsOrderWithItsFlags() throws Exception {
        JsonNode golden = FrameCodec.json().readTree(Files.readAllBytes(Path.of("..", "tests", "golden",
                "ray-2.60-state-columns.json")));
        assertThat(golden.path("ray.__version__").asText()).isEqualTo(beam.util.Versions.RAY);
        for (StateTable<?> table : StateTables.standard().all()) {
            JsonNode rays = golden.path(table.name());
            assertThat(rays.isArray()).as("Ray 2.60 has no table %s", table.name()).isTrue();
            List<String> notServed = NOT_SERVED.getOrDefault(table.name(), List.of());
            List<String> expected = new ArrayList<>();
            for (JsonNode c : rays) {
                String name = c.path("name").asText();
                if (notServed.contains(name)) continue;
                expected.add(name + " filterable=" + c.path("filterable").asBoolean() + " detail="
                        + c.path("detail").asBoolean() + " type=" + type(c.path("kind").asText()));
            }
            // beam_label is beam's own column, though listed and filtered as Ray's base columns are
            List<String> ours = table.columns().stream().filter(c -> !c.beam() && !c.name().equals("beam_label"))
                    .map(c -> c.name() + " filterable=" + c.filterable() + " detail=" + c.detail() + " type=" + c.type())
                    .toList();
            assertThat(ours).as("Ray's columns of %s", table.name()).containsExactlyElementsOf(expected);
            List<String> rayNames = new ArrayList<>();
            rays.forEach(c -> rayNames.add(c.path("name").asText()));
            assertThat(rayNames).as("columns beam leaves out of %s are Ray's", table.name()).containsAll(notServed);
        }
    }

    private static StateTable.Type type(String rayKind) {
        return switch (rayKind) {
            case "str" -> StateTable.Type.TEXT;
            case "int" -> StateTable.Type.INT;
            case "float" -> StateTable.Type.FLOAT;
            case "bool" -> StateTable.Type.BOOL;
            default -> StateTable.Type.OTHER;
        };
    }
}
