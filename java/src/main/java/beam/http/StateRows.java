package beam.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.HashSet;
import java.util.Set;

/**
 * Rows of Ray's state API ({@code ray.util.state.common}: NodeState, ActorState,
 * PlacementGroupState), with Ray's field names and state names, made from the head's
 * status view.
 */
final class StateRows {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private StateRows() {
    }

    static ArrayNode nodes(ObjectNode status) {
        ArrayNode rows = F.arrayNode();
        for (JsonNode n : status.path("nodes")) {
            ObjectNode r = rows.addObject();
            boolean alive = n.path("Alive").asBoolean();
            r.put("node_id", n.path("NodeID").asText());
            r.put("node_ip", n.path("NodeManagerAddress").asText());
            r.put("is_head_node", n.path("IsHead").asBoolean());
            r.put("state", alive ? "ALIVE" : "DEAD");
            if (alive) r.putNull("state_message");
            else r.put("state_message", n.path("DeathReasonMessage").asText());
            r.put("node_name", n.path("NodeName").asText());
            r.set("resources_total", n.path("Resources").deepCopy());
            r.set("resources_available", n.path("Available").deepCopy());
            r.set("labels", n.path("Labels").deepCopy());
            r.put("start_time_ms", n.path("StartTimeMs").asLong());
            r.put("end_time_ms", 0);
        }
        return rows;
    }

    /** Every actor in the table, then the recent dead ones that already left it. */
    static ArrayNode actors(ObjectNode status) {
        ArrayNode rows = F.arrayNode();
        Set<String> seen = new HashSet<>();
        for (JsonNode a : status.path("actors")) {
            seen.add(a.path("actor_id").asText());
            rows.add(actor(a));
        }
        for (JsonNode a : status.path("recent_deaths")) {
            if (seen.add(a.path("actor_id").asText())) rows.add(actor(a));
        }
        return rows;
    }

    private static ObjectNode actor(JsonNode a) {
        ObjectNode r = F.objectNode();
        String state = a.path("state").asText();
        r.put("actor_id", a.path("actor_id").asText());
        r.put("class_name", a.path("class_name").asText());
        r.put("state", switch (state) {
            case "ALIVE", "DEAD" -> state;
            default -> "PENDING_CREATION";
        });
        r.put("job_id", a.path("job_id").asText(""));
        if (a.hasNonNull("name")) r.put("name", a.path("name").asText());
        else r.put("name", "");
        r.set("node_id", a.path("node_id").deepCopy());
        r.put("pid", a.path("pid").asLong());
        r.put("ray_namespace", a.path("namespace").asText(""));
        r.put("serialized_runtime_env", "{}");
        r.set("required_resources", a.path("resources").deepCopy());
        if (a.hasNonNull("death_message")) {
            ObjectNode ctx = r.putObject("death_cause").putObject("actor_died_error_context");
            ctx.put("error_message", a.path("death_message").asText());
            ctx.put("actor_id", a.path("actor_id").asText());
            ctx.put("class_name", a.path("class_name").asText());
            ctx.put("pid", a.path("pid").asLong());
            ctx.set("node_ip_address", a.path("node_ip").deepCopy());
        } else {
            r.putNull("death_cause");
        }
        r.put("is_detached", a.path("is_detached").asBoolean(false));
        r.set("placement_group_id", a.path("placement_group_id").deepCopy());
        r.put("repr_name", "");
        r.put("num_restarts", 0);
        r.put("num_restarts_due_to_lineage_reconstruction", 0);
        return r;
    }

    static ArrayNode placementGroups(ObjectNode status) {
        ArrayNode rows = F.arrayNode();
        for (JsonNode g : status.path("placement_groups")) {
            ObjectNode r = rows.addObject();
            String id = g.path("placement_group_id").asText();
            r.put("placement_group_id", id);
            r.put("name", g.path("name").asText(""));
            r.put("creator_job_id", "");
            r.put("state", g.path("state").asText());
            ArrayNode bundles = r.putArray("bundles");
            g.path("bundles").fields().forEachRemaining(e -> {
                ObjectNode b = bundles.addObject();
                b.put("bundle_id", id + "_" + e.getKey());
                b.set("node_id", g.path("bundles_to_node_id").path(e.getKey()).isMissingNode() ? F.nullNode()
                        : g.path("bundles_to_node_id").path(e.getKey()).deepCopy());
                b.set("unit_resources", e.getValue().deepCopy());
            });
            r.put("is_detached", false);
            r.set("stats", g.path("stats").deepCopy());
        }
        return rows;
    }
}
