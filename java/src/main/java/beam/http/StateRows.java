package beam.http;

import beam.cluster.ActorHistory;
import beam.cluster.ActorSnapshot;
import beam.cluster.ClusterSnapshot;
import beam.cluster.GroupSnapshot;
import beam.cluster.NodeSnapshot;
import beam.views.ClusterViews;
import beam.views.GroupViews;
import beam.views.TaskRows;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.HashSet;
import java.util.Set;

/**
 * Rows of Ray's state API ({@code ray.util.state.common}: NodeState, ActorState,
 * PlacementGroupState), with Ray's field names and state names, made from one snapshot of
 * the cluster.
 */
final class StateRows {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private StateRows() {
    }

    static ArrayNode nodes(ClusterSnapshot status) {
        ArrayNode rows = F.arrayNode();
        for (NodeSnapshot n : status.nodes()) {
            ObjectNode r = rows.addObject();
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
        }
        return rows;
    }

    /** Every actor in the table, then the recent dead ones that already left it. */
    static ArrayNode actors(ClusterSnapshot status) {
        ArrayNode rows = F.arrayNode();
        Set<String> seen = new HashSet<>();
        for (ActorSnapshot a : status.actors()) {
            seen.add(a.id());
            rows.add(actor(a));
        }
        for (ActorHistory.Death d : status.recentDeaths()) {
            if (seen.add(d.actor().id())) rows.add(actor(d.actor()));
        }
        return rows;
    }

    private static ObjectNode actor(ActorSnapshot a) {
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
        r.put("repr_name", "");
        r.put("num_restarts", 0);
        r.put("num_restarts_due_to_lineage_reconstruction", 0);
        return r;
    }

    /** Actor calls as Ray's ACTOR_TASK rows (views/TaskRows): pending and running ones, then recent ended ones. */
    static ArrayNode tasks(ClusterSnapshot status) {
        return TaskRows.all(status);
    }

    static ArrayNode placementGroups(ClusterSnapshot status) {
        ArrayNode rows = F.arrayNode();
        for (GroupSnapshot g : status.groups()) {
            ObjectNode r = rows.addObject();
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
        }
        return rows;
    }
}
