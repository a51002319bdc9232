package beam.views;

import static beam.views.StateTable.Shown.BASE_FILTERABLE;
import static beam.views.StateTable.Shown.DETAIL;
import static beam.views.StateTable.Shown.DETAIL_FILTERABLE;

import beam.cluster.CallSnapshot;
import beam.cluster.ClusterSnapshot;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

/**
 * Actor calls as rows of Ray's task state API ({@code ray.util.state.common.TaskState} with
 * {@code detail=True}): Ray's field names and state names for an {@code ACTOR_TASK}
 * ({@link RayStates#call}), plus {@code beam_label} (the call's short first argument, or null).
 * beam has no worker ids: {@code worker_id} is the actor id followed by its pid in hex, one per
 * actor process. Fields beam cannot know without unpickling (the error message of a method that
 * raised, the call site) are null, as Ray leaves them when it does not record them.
 */
public final class TaskRows {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    /** The tasks table: each column with how a call gives its value, in Ray's order, beam's label last. */
    public static final StateTable<CallSnapshot> TABLE = new StateTable.Builder<>("tasks", "task_id", ClusterSnapshot::calls)
            .text("task_id", BASE_FILTERABLE, CallSnapshot::taskId)
            .integer("attempt_number", BASE_FILTERABLE, c -> 0L)
            .text("name", BASE_FILTERABLE, CallSnapshot::name)
            .text("state", BASE_FILTERABLE, c -> RayStates.call(c.state()))
            .text("job_id", BASE_FILTERABLE, c -> c.actorId().substring(24))
            .text("actor_id", BASE_FILTERABLE, CallSnapshot::actorId)
            .text("type", BASE_FILTERABLE, c -> "ACTOR_TASK")
            .text("func_or_class_name", BASE_FILTERABLE, CallSnapshot::name)
            .text("parent_task_id", BASE_FILTERABLE, c -> "")
            .text("node_id", BASE_FILTERABLE, CallSnapshot::nodeId)
            .text("worker_id", BASE_FILTERABLE, c -> c.pid() > 0 && c.state() != CallSnapshot.State.WAITING_FOR_ACTOR
                    ? c.actorId() + String.format("%024x", c.pid()) : null)
            .integer("worker_pid", BASE_FILTERABLE, c -> ran(c) && c.pid() > 0 ? c.pid() : null)
            .text("error_type", BASE_FILTERABLE, CallSnapshot::errorType)
            .text("language", DETAIL_FILTERABLE, c -> "PYTHON")
            .json("required_resources", DETAIL, c -> F.objectNode())
            .json("runtime_env_info", DETAIL, c -> F.objectNode())
            .text("placement_group_id", DETAIL_FILTERABLE, c -> null)
            .json("events", DETAIL, c -> F.arrayNode())
            .json("profiling_data", DETAIL, c -> F.objectNode())
            .integer("creation_time_ms", DETAIL, CallSnapshot::submitMillis)
            .integer("start_time_ms", DETAIL, c -> millisOrNull(ran(c) ? c.startMillis() : 0))
            .integer("end_time_ms", DETAIL, c -> millisOrNull(c.endMillis()))
            .json("task_log_info", DETAIL, c -> null)
            .text("error_message", DETAIL, c -> null)
            .bool("is_debugger_paused", DETAIL_FILTERABLE, c -> null)
            .text("call_site", DETAIL, c -> null)
            .json("label_selector", DETAIL, c -> F.objectNode())
            .json("fallback_strategy", DETAIL, c -> F.objectNode())
            .text("beam_label", BASE_FILTERABLE, CallSnapshot::label)
            .build();

    private TaskRows() {
    }

    /** Every call the snapshot lists: pending and running ones, then the most recent ended ones. */
    public static ArrayNode all(ClusterSnapshot snapshot) {
        ArrayNode rows = F.arrayNode();
        for (CallSnapshot c : snapshot.calls()) rows.add(TABLE.row(c));
        return rows;
    }

    /** It started running on its actor (so it has a start time and a worker pid). */
    private static boolean ran(CallSnapshot c) {
        return c.state() != CallSnapshot.State.WAITING_FOR_ACTOR && c.state() != CallSnapshot.State.QUEUED
                && c.startMillis() > 0;
    }

    private static Long millisOrNull(long millis) {
        return millis > 0 ? millis : null;
    }
}
