package beam.views;

import static beam.views.StateTable.Shown.BASE;
import static beam.views.StateTable.Shown.BASE_FILTERABLE;
import static beam.views.StateTable.Shown.BEAM;
import static beam.views.StateTable.Shown.DETAIL;
import static beam.views.StateTable.Shown.DETAIL_FILTERABLE;

import beam.cluster.ActorSnapshot;
import beam.cluster.ClusterSnapshot;
import beam.cluster.GroupSnapshot;
import beam.cluster.NodeAccelerator;
import beam.cluster.NodeSnapshot;
import beam.protocol.FactsCodec;
import beam.protocol.ResourceJson;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The tables the state API serves, by Ray's resource name, each declared once with its
 * columns in Ray's order (ray.util.state.common's ActorState, NodeState, PlacementGroupState,
 * TaskState) and how a record gives each value, beam's own marked {@code BEAM}. The unix
 * socket's {@code state_list} and the HTTP face's {@code /api/v0/<table>} (one route per
 * table here) both look a table up here, so a new table is one more {@link #with} and every
 * face lists, filters, gets and summarizes it.
 */
public final class StateTables {
    private final Map<String, StateTable<?>> tables;

    private StateTables(Map<String, StateTable<?>> tables) {
        this.tables = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(tables));
    }

    /** Ray's actors, nodes, placement groups and tasks (actor calls), with Ray's columns. */
    public static StateTables standard() {
        return new StateTables(Map.of()).with(ACTORS).with(NODES).with(PLACEMENT_GROUPS).with(TaskRows.TABLE);
    }

    /** These tables and one more (it replaces one of the same name). */
    public StateTables with(StateTable<?> table) {
        Map<String, StateTable<?>> next = new LinkedHashMap<>(tables);
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

    /** Every table, in registration order. */
    public List<StateTable<?>> all() {
        return List.copyOf(tables.values());
    }

    /** The table names as the CLI spells them. */
    public List<String> names() {
        return tables.keySet().stream().map(n -> n.replace('_', '-')).toList();
    }

    static final StateTable<ActorSnapshot> ACTORS = new StateTable.Builder<>("actors", "actor_id", StateRows::actors)
            .text("actor_id", BASE_FILTERABLE, ActorSnapshot::id)
            .text("class_name", BASE_FILTERABLE, ActorSnapshot::className)
            .text("state", BASE_FILTERABLE, a -> RayStates.actor(a.state()))
            .text("job_id", BASE_FILTERABLE, a -> StateRows.orEmpty(a.jobId()))
            .text("name", BASE_FILTERABLE, a -> StateRows.orEmpty(a.name()))
            .text("node_id", BASE_FILTERABLE, ActorSnapshot::nodeId)
            .integer("pid", BASE_FILTERABLE, ActorSnapshot::pid)
            .text("ray_namespace", BASE_FILTERABLE, a -> StateRows.orEmpty(a.namespace()))
            .text("serialized_runtime_env", DETAIL, a -> "{}")
            .json("required_resources", DETAIL, a -> ResourceJson.write(a.request().amounts()))
            .json("death_cause", DETAIL, StateRows::deathCause)
            .bool("is_detached", DETAIL, ActorSnapshot::detached)
            .text("placement_group_id", DETAIL_FILTERABLE, ActorSnapshot::groupId)
            .text("repr_name", DETAIL_FILTERABLE, ActorSnapshot::reprName)
            .integer("num_restarts", DETAIL, a -> 0L)
            .integer("num_restarts_due_to_lineage_reconstruction", DETAIL, a -> 0L)
            .text("node_ip", BEAM, ActorSnapshot::nodeIp)
            .json("gpu_ids", BEAM, a -> StateRows.texts(a.gpuIds()))
            .json("accelerator_ids", BEAM, StateRows::acceleratorIds)
            .build();

    static final StateTable<NodeSnapshot> NODES = new StateTable.Builder<>("nodes", "node_id", ClusterSnapshot::nodes)
            .text("node_id", BASE_FILTERABLE, NodeSnapshot::id)
            .text("node_ip", BASE_FILTERABLE, NodeSnapshot::ip)
            .bool("is_head_node", BASE_FILTERABLE, NodeSnapshot::head)
            .text("state", BASE_FILTERABLE, n -> n.alive() ? "ALIVE" : "DEAD")
            .text("state_message", BASE, n -> n.alive() ? null : n.deathReason())
            .text("node_name", BASE_FILTERABLE, NodeSnapshot::ip)
            .json("resources_total", BASE, n -> ClusterViews.resources(n, n.total()))
            .json("resources_available", BEAM, n -> ClusterViews.resources(n, n.available()))
            .json("labels", BASE, ClusterViews::labels)
            .integer("start_time_ms", DETAIL, NodeSnapshot::startedMillis)
            .integer("end_time_ms", DETAIL, n -> 0L)
            .json("gpus", BEAM, n -> StateRows.texts(n.gpuIds()))
            .json("accelerator_details", BEAM, n -> FactsCodec.accelerators(NodeAccelerator.describeAll(n.accelerators())))
            .build();

    static final StateTable<GroupSnapshot> PLACEMENT_GROUPS = new StateTable.Builder<>("placement_groups",
            "placement_group_id", ClusterSnapshot::groups)
            .text("placement_group_id", BASE_FILTERABLE, GroupSnapshot::id)
            .text("name", BASE_FILTERABLE, g -> StateRows.orEmpty(g.name()))
            .text("creator_job_id", BASE_FILTERABLE, g -> "")
            .text("state", BASE_FILTERABLE, g -> g.state().name())
            .json("bundles", DETAIL, StateRows::bundles)
            .bool("is_detached", DETAIL_FILTERABLE, g -> false)
            .json("stats", DETAIL, GroupViews::stats)
            .text("strategy", BEAM, GroupSnapshot::strategy)
            .text("waiting_reason", BEAM, g -> StateRows.orEmpty(g.waitingReason()))
            .build();
}
