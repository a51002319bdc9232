package beam.views;

import beam.cluster.ActorHistory;
import beam.cluster.ActorSnapshot;
import beam.cluster.ClusterSnapshot;
import beam.cluster.GroupSnapshot;
import beam.cluster.NodeAccelerator;
import beam.cluster.NodeSnapshot;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Rows of Ray's state API ({@code ray.util.state.common}: NodeState, ActorState,
 * PlacementGroupState), with Ray's field names and state names, one row per record of a
 * snapshot. Each row also carries beam's own columns ({@link StateTables} marks them), which
 * only the detailed listing shows. Rows are made one at a time, so a query that keeps ten of
 * 100,000 actors builds few of them.
 */
public final class StateRows {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private StateRows() {
    }

    public static ObjectNode node(NodeSnapshot n) {
        ObjectNode r = F.objectNode();
        r.put("node_id", n.id());
        r.put("node_ip", n.ip());
        r.put("is_head_node", n.head());
        r.put("state", n.alive() ? "ALIVE" : "DEAD");
        if (n.alive()) r.putNull("state_message");
        else r.put("state_message", n.deathReason());
        r.put("node_name", n.ip());
        r.set("resources_total", ClusterViews.resources(n, n.total()));
        r.set("resources_available", ClusterViews.resources(n, n.available()));
        r.set("labels", ClusterViews.labels(n));
        r.put("start_time_ms", n.startedMillis());
        r.put("end_time_ms", 0);
        ArrayNode gpus = r.putArray("gpus");
        n.gpuIds().forEach(gpus::add);
        r.set("accelerator_details", NodeAccelerator.toJson(n.accelerators()));
        return r;
    }

    /** Every actor in the table, then the recent dead ones that already left it. */
    public static List<ActorSnapshot> actors(ClusterSnapshot status) {
        List<ActorSnapshot> out = new ArrayList<>(status.actors());
        Set<String> seen = new HashSet<>();
        for (ActorSnapshot a : status.actors()) seen.add(a.id());
        for (ActorHistory.Death d : status.recentDeaths()) {
            if (seen.add(d.actor().id())) out.add(d.actor());
        }
        return out;
    }

    public static ObjectNode actor(ActorSnapshot a) {
        ObjectNode r = F.objectNode();
        r.put("actor_id", a.id());
        r.put("class_name", a.className());
        r.put("state", switch (a.state()) {
            case ALIVE, DEAD -> a.state().name();
            default -> "PENDING_CREATION";
        });
        r.put("job_id", a.jobId() != null ? a.jobId() : "");
        r.put("name", a.name() != null ? a.name() : "");
        r.put("node_id", a.nodeId());
        r.put("pid", a.pid());
        r.put("ray_namespace", a.namespace() != null ? a.namespace() : "");
        r.put("serialized_runtime_env", "{}");
        r.set("required_resources", a.request().toJson());
        if (a.deathMessage() != null) {
            ObjectNode ctx = r.putObject("death_cause").putObject("actor_died_error_context");
            ctx.put("error_message", a.deathMessage());
            ctx.put("actor_id", a.id());
            ctx.put("class_name", a.className());
            ctx.put("pid", a.pid());
            ctx.put("node_ip_address", a.nodeIp());
        } else {
            r.putNull("death_cause");
        }
        r.put("is_detached", a.detached());
        r.put("placement_group_id", a.groupId());
        r.put("repr_name", a.reprName());
        r.put("num_restarts", 0);
        r.put("num_restarts_due_to_lineage_reconstruction", 0);
        r.put("node_ip", a.nodeIp());
        ArrayNode gpus = r.putArray("gpu_ids");
        a.gpuIds().forEach(gpus::add);
        ObjectNode ids = r.putObject("accelerator_ids");
        a.deviceIds().forEach((resource, list) -> list.forEach(ids.withArray(resource)::add));
        return r;
    }

    public static ObjectNode placementGroup(GroupSnapshot g) {
        ObjectNode r = F.objectNode();
        r.put("placement_group_id", g.id());
        r.put("name", g.name() != null ? g.name() : "");
        r.put("creator_job_id", "");
        r.put("state", g.state().name());
        ArrayNode bundles = r.putArray("bundles");
        for (int i = 0; i < g.bundles().size(); i++) {
            ObjectNode b = bundles.addObject();
            b.put("bundle_id", g.id() + "_" + i);
            b.put("node_id", g.bundleNodes().get(i));
            b.set("unit_resources", g.bundles().get(i).toJson());
        }
        r.put("is_detached", false);
        r.set("stats", GroupViews.stats(g));
        r.put("strategy", g.strategy());
        r.put("waiting_reason", g.waitingReason() != null ? g.waitingReason() : "");
        return r;
    }
}
