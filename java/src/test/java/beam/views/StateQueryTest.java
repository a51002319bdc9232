package beam.views;

import static beam.views.StateTable.Shown.BASE_FILTERABLE;
import static beam.views.StateTable.Shown.BEAM;
import static beam.views.StateTable.Shown.DETAIL;
import static beam.views.StateTable.Shown.DETAIL_FILTERABLE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The state query engine over a table registered the way the tasks table is: records and columns made in the test. */
class StateQueryTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final AtomicInteger rowsBuilt = new AtomicInteger();

    private record Task(String id, String name, String state, String type, Long pid) {
    }

    private final List<Task> tasks = List.of(
            new Task("t1", "Worker.execute_method", "RUNNING", "ACTOR_TASK", 11L),
            new Task("t2", "Worker.execute_method", "FINISHED", "ACTOR_TASK", 11L),
            new Task("t3", "Worker.execute_method", "FAILED", "ACTOR_TASK", 12L),
            new Task("t4", "Engine.step", "PENDING_ARGS_AVAIL", "ACTOR_TASK", null),
            new Task("t5", "Worker.__init__", "FINISHED", "ACTOR_CREATION_TASK", 12L),
            new Task("t6", "f", "FINISHED", "NORMAL_TASK", 13L));

    private StateTables tables(List<Task> records) {
        return StateTables.standard().with(new StateTable.Builder<Task>("tasks", "task_id", snapshot -> records)
                .text("task_id", BASE_FILTERABLE, t -> {
                    rowsBuilt.incrementAndGet(); // the first column: read once per row built
                    return t.id();
                })
                .text("name", BASE_FILTERABLE, Task::name)
                .text("state", BASE_FILTERABLE, Task::state)
                .text("type", BASE_FILTERABLE, Task::type)
                .integer("worker_pid", BASE_FILTERABLE, Task::pid)
                .bool("is_debugger_paused", DETAIL_FILTERABLE, t -> false)
                .text("error_message", DETAIL, t -> t.state().equals("FAILED") ? "boom" : null)
                .text("beam_only", BEAM, t -> "x")
                .build());
    }

    private JsonNode list(List<StateQuery.Filter> filters, int limit, boolean detail) {
        return new StateQuery("tasks", filters, limit, detail).run(tables(tasks), null);
    }

    private static List<String> ids(JsonNode reply) {
        List<String> out = new ArrayList<>();
        reply.path("result").forEach(r -> out.add(r.path("task_id").asText()));
        return out;
    }

    private static StateQuery.Filter f(String k, String p, String v) {
        return new StateQuery.Filter(k, p, v);
    }

    @Test
    void filtersAreAndedAndTextComparesCaseInsensitively() {
        JsonNode r = list(List.of(f("name", "=", "worker.EXECUTE_method"), f("state", "!=", "finished")), 100, false);
        assertThat(ids(r)).containsExactly("t1", "t3");
        assertThat(r.path("num_filtered").asInt()).isEqualTo(2);
        assertThat(r.path("total").asInt()).isEqualTo(6);
    }

    @Test
    void numbersAndBoolsAreCoercedAsRayDoesAndNullNeverEquals() {
        assertThat(ids(list(List.of(f("worker_pid", "=", "12")), 100, false))).containsExactly("t3", "t5");
        assertThat(ids(list(List.of(f("worker_pid", "!=", "11")), 100, false))).containsExactly("t3", "t4", "t5", "t6");
        assertThat(ids(list(List.of(f("is_debugger_paused", "=", "False")), 100, false))).hasSize(6);
        assertThat(ids(list(List.of(f("is_debugger_paused", "=", "1")), 100, false))).isEmpty();
        assertThat(ids(list(List.of(f("STATE", "=", "running")), 100, false))).containsExactly("t1"); // keys too
    }

    @Test
    void theLimitKeepsTheFirstRowsAndCountsEveryMatch() {
        JsonNode r = list(List.of(f("type", "=", "ACTOR_TASK")), 2, false);
        assertThat(ids(r)).containsExactly("t1", "t2");
        assertThat(r.path("num_filtered").asInt()).isEqualTo(4);
    }

    @Test
    void withoutFiltersOnlyThePageIsBuilt() {
        JsonNode r = list(List.of(), 2, false);
        assertThat(ids(r)).containsExactly("t1", "t2");
        assertThat(r.path("num_filtered").asInt()).isEqualTo(6);
        assertThat(rowsBuilt.get()).isEqualTo(2);
    }

    @Test
    void detailColumnsAndBeamsOwnOnlyWithDetail() {
        JsonNode plain = list(List.of(f("task_id", "=", "t3")), 10, false).path("result").get(0);
        assertThat(plain.has("error_message") || plain.has("beam_only") || plain.has("is_debugger_paused")).isFalse();
        assertThat(plain.path("worker_pid").asInt()).isEqualTo(12);
        JsonNode full = list(List.of(f("task_id", "=", "t3")), 10, true).path("result").get(0);
        assertThat(full.path("error_message").asText()).isEqualTo("boom");
        assertThat(full.path("beam_only").asText()).isEqualTo("x");
    }

    @Test
    void badInputNamesWhatWasWrongAndTheChoices() {
        assertThatThrownBy(() -> list(List.of(f("colour", "=", "x")), 10, false))
                .hasMessageContaining("Invalid filter key 'colour' for resource 'tasks'")
                .hasMessageContaining("task_id, name, state, type, worker_pid");
        assertThatThrownBy(() -> list(List.of(f("error_message", "=", "x")), 10, false))
                .hasMessageContaining("The given filter column error_message is not supported")
                .hasMessageContaining("[is_debugger_paused, name, state, task_id, type, worker_pid]");
        assertThatThrownBy(() -> list(List.of(f("state", ">", "x")), 10, false))
                .hasMessage("Unsupported filter predicate > is given. Available predicates: =, !=.");
        assertThatThrownBy(() -> list(List.of(f("worker_pid", "=", "abc")), 10, false))
                .hasMessageContaining("for a int type column");
        assertThatThrownBy(() -> list(List.of(f("is_debugger_paused", "=", "maybe")), 10, false))
                .hasMessageContaining("[True|true|1]");
        assertThatThrownBy(() -> new StateQuery("tasks", List.of(), 0, false)).hasMessageContaining("not positive");
        assertThatThrownBy(() -> new StateQuery("tasks", List.of(), 10_001, false))
                .hasMessageContaining("exceeds the supported limit 10000");
        assertThatThrownBy(() -> new StateQuery("jobs", List.of(), 10, false).run(tables(tasks), null))
                .hasMessage("Unknown resource 'jobs': choose from actors, nodes, placement-groups, tasks.");
        assertThat(rowsBuilt.get()).isZero(); // every refusal comes before a row is built
    }

    @Test
    void filtersFromTheWireAreChecked() throws Exception {
        assertThat(StateQuery.filters(JSON.readTree("[[\"worker_pid\", \"=\", 12], [\"state\", \"!=\", \"DEAD\"]]")))
                .containsExactly(f("worker_pid", "=", "12"), f("state", "!=", "DEAD"));
        assertThatThrownBy(() -> StateQuery.filters(JSON.readTree("[[\"state\", \"=\"]]")))
                .hasMessageContaining("[key, predicate, value]");
        assertThatThrownBy(() -> StateQuery.filters(JSON.readTree("{\"state\": 1}"))).hasMessageContaining("list");
    }

    @Test
    void taskSummaryGroupsByNameWithCountsPerStateAndKind() {
        JsonNode s = StateSummary.of(tables(tasks), "tasks", List.of(), null).path("result")
                .path("node_id_to_summary").path("cluster");
        JsonNode exec = s.path("summary").path("Worker.execute_method");
        assertThat(exec.path("func_or_class_name").asText()).isEqualTo("Worker.execute_method");
        assertThat(exec.path("type").asText()).isEqualTo("ACTOR_TASK");
        assertThat(exec.path("state_counts").toString()).isEqualTo("{\"RUNNING\":1,\"FINISHED\":1,\"FAILED\":1}");
        assertThat(s.path("total_tasks").asInt()).isEqualTo(1);
        assertThat(s.path("total_actor_tasks").asInt()).isEqualTo(4);
        assertThat(s.path("total_actor_scheduled").asInt()).isEqualTo(1);
        assertThat(s.path("summary_by").asText()).isEqualTo("func_name");
        JsonNode failedOnly = StateSummary.of(tables(tasks), "tasks", List.of(f("state", "=", "failed")), null);
        assertThat(failedOnly.path("num_filtered").asInt()).isEqualTo(1);
        assertThatThrownBy(() -> StateSummary.of(tables(tasks), "nodes", List.of(), null))
                .hasMessage("Unknown summary resource 'nodes': choose from actors, tasks.");
    }

    @Test
    void actorSummaryCountsPerClassAndState() {
        ObjectNode a = JSON.createObjectNode().put("class_name", "A").put("state", "ALIVE");
        ObjectNode b = JSON.createObjectNode().put("class_name", "A").put("state", "DEAD");
        ObjectNode c = JSON.createObjectNode().put("class_name", "B").put("state", "ALIVE");
        JsonNode s = StateSummary.actors(List.of(a, b, c, a));
        assertThat(s.path("summary").path("A").path("state_counts").toString()).isEqualTo("{\"ALIVE\":2,\"DEAD\":1}");
        assertThat(s.path("summary").path("B").path("class_name").asText()).isEqualTo("B");
        assertThat(s.path("total_actors").asInt()).isEqualTo(4);
    }
}
