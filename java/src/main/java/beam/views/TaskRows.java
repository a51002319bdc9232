package beam.views;

import beam.cluster.CallSnapshot;
import beam.cluster.ClusterSnapshot;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Actor calls as rows of Ray's task state API ({@code ray.util.state.common.TaskState} with
 * {@code detail=True}): Ray's field names and state names for an {@code ACTOR_TASK}, plus
 * {@code beam_label} (the call's short first argument, or null). The state names are the ones
 * Ray 2.60 shows (tests/golden/ray-2.60-tasks.json, see {@link #rayState}). beam has no worker
 * ids: {@code worker_id} is the actor id followed by its pid in hex, one per actor process.
 * Fields beam cannot know without unpickling (the error message of a method that raised, the
 * call site) are null, as Ray leaves them when it does not record them.
 */
public final class TaskRows {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private TaskRows() {
    }

    /** Every call the snapshot lists: pending and running ones, then the most recent ended ones. */
    public static ArrayNode all(ClusterSnapshot snapshot) {
        ArrayNode rows = F.arrayNode();
        for (CallSnapshot c : snapshot.calls()) rows.add(row(c));
        return rows;
    }

    /** Ray's name for a call's state. */
    public static String rayState(CallSnapshot.State state) {
        return switch (state) {
            case WAITING_FOR_ACTOR -> WAITING_FOR_ACTOR;
            case QUEUED -> QUEUED;
            case RUNNING -> "RUNNING";
            case FINISHED -> "FINISHED";
            case FAILED -> "FAILED";
        };
    }

    /** What Ray 2.60 shows for a call whose actor is still being placed or constructed. */
    static final String WAITING_FOR_ACTOR = "PENDING_NODE_ASSIGNMENT";
    /** What it shows for a call sent to the actor and waiting behind the one it runs. */
    static final String QUEUED = "SUBMITTED_TO_WORKER";

    public static ObjectNode row(CallSnapshot c) {
        ObjectNode r = F.objectNode();
        r.put("task_id", c.taskId());
        r.put("attempt_number", 0);
        r.put("name", c.name());
        r.put("state", rayState(c.state()));
        r.put("job_id", c.actorId().substring(24));
        r.put("actor_id", c.actorId());
        r.put("type", "ACTOR_TASK");
        r.put("func_or_class_name", c.name());
        r.put("parent_task_id", "");
        r.put("node_id", c.nodeId());
        boolean ran = c.state() != CallSnapshot.State.WAITING_FOR_ACTOR && c.state() != CallSnapshot.State.QUEUED
                && c.startMillis() > 0;
        if (c.pid() > 0 && c.state() != CallSnapshot.State.WAITING_FOR_ACTOR) {
            r.put("worker_id", c.actorId() + String.format("%024x", c.pid()));
        } else {
            r.putNull("worker_id");
        }
        if (ran && c.pid() > 0) r.put("worker_pid", c.pid());
        else r.putNull("worker_pid");
        r.put("error_type", c.errorType());
        r.putNull("error_message");
        r.put("language", "PYTHON");
        r.putObject("required_resources");
        r.putObject("runtime_env_info");
        r.putNull("placement_group_id");
        r.putArray("events");
        r.putObject("profiling_data");
        r.putNull("task_log_info");
        r.putNull("call_site");
        r.putNull("is_debugger_paused");
        r.putObject("label_selector");
        r.putObject("fallback_strategy");
        r.put("creation_time_ms", c.submitMillis());
        millisOrNull(r, "start_time_ms", ran ? c.startMillis() : 0);
        millisOrNull(r, "end_time_ms", c.endMillis());
        r.put("beam_label", c.label());
        return r;
    }

    private static void millisOrNull(ObjectNode r, String key, long millis) {
        if (millis > 0) r.put(key, millis);
        else r.putNull(key);
    }
}
