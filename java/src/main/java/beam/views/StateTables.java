package beam.views;

import static beam.views.StateTable.base;
import static beam.views.StateTable.beam;
import static beam.views.StateTable.detail;

import beam.cluster.ClusterSnapshot;
import beam.views.StateTable.Type;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The tables the state API serves, by Ray's resource name: the unix socket's {@code state_list}
 * and the HTTP face's {@code /api/v0/<table>} both look a table up here, so a new table (tasks)
 * is one more {@link #with} and every face lists, filters, gets and summarizes it.
 */
public final class StateTables {
    private final Map<String, StateTable<?>> tables;

    private StateTables(Map<String, StateTable<?>> tables) {
        this.tables = Map.copyOf(tables);
        this.order = List.copyOf(tables.keySet());
    }

    private final List<String> order;

    /** Ray's actors, nodes, placement groups and tasks (actor calls), with Ray's columns (ray.util.state.common). */
    public static StateTables standard() {
        return new StateTables(new LinkedHashMap<>()).with(actors()).with(nodes()).with(placementGroups()).with(tasks());
    }

    /** These tables and one more (it replaces one of the same name). */
    public StateTables with(StateTable<?> table) {
        Map<String, StateTable<?>> next = new LinkedHashMap<>();
        for (String name : order) next.put(name, tables.get(name));
        next.put(table.name(), table);
        return new StateTables(next);
    }

    /** The table a name means; {@code placement-groups} as the CLI spells it is the same table. */
    public StateTable<?> table(String name) {
        StateTable<?> t = name == null ? null : tables.get(name.replace('-', '_'));
        if (t == null) {
            throw new StateQuery.Invalid("Unknown resource '" + StateQuery.clip(String.valueOf(name)) + "': choose from "
                    + String.join(", ", names()) + ".");
        }
        return t;
    }

    /** The table names as the CLI spells them. */
    public List<String> names() {
        return order.stream().map(n -> n.replace('_', '-')).toList();
    }

    static StateTable<?> actors() {
        return new StateTable<>("actors", "actor_id", List.of(
                base("actor_id", Type.TEXT, true), base("class_name", Type.TEXT, true), base("state", Type.TEXT, true),
                base("job_id", Type.TEXT, true), base("name", Type.TEXT, true), base("node_id", Type.TEXT, true),
                base("pid", Type.INT, true), base("ray_namespace", Type.TEXT, true),
                detail("serialized_runtime_env", Type.TEXT, false), detail("required_resources", Type.OTHER, false),
                detail("death_cause", Type.OTHER, false), detail("is_detached", Type.BOOL, false),
                detail("placement_group_id", Type.TEXT, true), detail("repr_name", Type.TEXT, true),
                detail("num_restarts", Type.INT, false), detail("num_restarts_due_to_lineage_reconstruction", Type.INT, false),
                beam("node_ip"), beam("gpu_ids"), beam("accelerator_ids")),
                StateRows::actors, StateRows::actor);
    }

    static StateTable<?> nodes() {
        return new StateTable<>("nodes", "node_id", List.of(
                base("node_id", Type.TEXT, true), base("node_ip", Type.TEXT, true), base("is_head_node", Type.BOOL, true),
                base("state", Type.TEXT, true), base("state_message", Type.TEXT, false), base("node_name", Type.TEXT, true),
                base("resources_total", Type.OTHER, false), beam("resources_available"),
                base("labels", Type.OTHER, false), detail("start_time_ms", Type.INT, false),
                detail("end_time_ms", Type.INT, false), beam("gpus"), beam("accelerator_details")),
                ClusterSnapshot::nodes, StateRows::node);
    }

    static StateTable<?> placementGroups() {
        return new StateTable<>("placement_groups", "placement_group_id", List.of(
                base("placement_group_id", Type.TEXT, true), base("name", Type.TEXT, true),
                base("creator_job_id", Type.TEXT, true), base("state", Type.TEXT, true),
                detail("bundles", Type.OTHER, false), detail("is_detached", Type.BOOL, true),
                detail("stats", Type.OTHER, false), beam("strategy"), beam("waiting_reason")),
                ClusterSnapshot::groups, StateRows::placementGroup);
    }

    static StateTable<?> tasks() {
        return new StateTable<>("tasks", "task_id", List.of(
                base("task_id", Type.TEXT, true), base("attempt_number", Type.INT, true), base("name", Type.TEXT, true),
                base("state", Type.TEXT, true), base("job_id", Type.TEXT, true), base("actor_id", Type.TEXT, true),
                base("type", Type.TEXT, true), base("func_or_class_name", Type.TEXT, true),
                base("parent_task_id", Type.TEXT, true), base("node_id", Type.TEXT, true),
                base("worker_id", Type.TEXT, true), base("worker_pid", Type.INT, true), base("error_type", Type.TEXT, true),
                base("beam_label", Type.TEXT, true),
                detail("language", Type.TEXT, true), detail("required_resources", Type.OTHER, false),
                detail("runtime_env_info", Type.OTHER, false), detail("placement_group_id", Type.TEXT, true),
                detail("events", Type.OTHER, false), detail("profiling_data", Type.OTHER, false),
                detail("creation_time_ms", Type.INT, false), detail("start_time_ms", Type.INT, false),
                detail("end_time_ms", Type.INT, false), detail("task_log_info", Type.OTHER, false),
                detail("error_message", Type.TEXT, false), detail("is_debugger_paused", Type.BOOL, true),
                detail("call_site", Type.TEXT, false), detail("label_selector", Type.OTHER, false),
                detail("fallback_strategy", Type.OTHER, false)),
                ClusterSnapshot::calls, TaskRows::row);
    }
}
