package beam.views;

import beam.cluster.ActorHistory;
import beam.cluster.ActorSnapshot;
import beam.cluster.ClusterSnapshot;
import beam.cluster.GroupSnapshot;
import beam.protocol.ResourceJson;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The records the actors table lists, and the values of its and the placement groups' columns
 * that take more than a line ({@link StateTables} declares the columns): Ray's
 * {@code death_cause}, {@code bundles}, and beam's accelerator ids.
 */
final class StateRows {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private StateRows() {
    }

    /** Every actor in the table, then the recent dead ones that already left it. */
    static List<ActorSnapshot> actors(ClusterSnapshot status) {
        List<ActorSnapshot> out = new ArrayList<>(status.actors());
        Set<String> seen = new HashSet<>();
        for (ActorSnapshot a : status.actors()) seen.add(a.id());
        for (ActorHistory.Death d : status.recentDeaths()) {
            if (seen.add(d.actor().id())) out.add(d.actor());
        }
        return out;
    }

    /** Ray's {@code death_cause} with its {@code actor_died_error_context}; null while the actor lives. */
    static JsonNode deathCause(ActorSnapshot a) {
        if (a.deathMessage() == null) return null;
        ObjectNode cause = F.objectNode();
        ObjectNode ctx = cause.putObject("actor_died_error_context");
        ctx.put("error_message", a.deathMessage());
        ctx.put("actor_id", a.id());
        ctx.put("class_name", a.className());
        ctx.put("pid", a.pid());
        ctx.put("node_ip_address", a.nodeIp());
        return cause;
    }

    /** The actor's device ids per accelerator resource ({@code {"GPU": ["0"]}}). */
    static JsonNode acceleratorIds(ActorSnapshot a) {
        ObjectNode ids = F.objectNode();
        a.deviceIds().forEach((resource, list) -> list.forEach(ids.withArray(resource)::add));
        return ids;
    }

    static JsonNode texts(List<String> values) {
        ArrayNode out = F.arrayNode();
        values.forEach(out::add);
        return out;
    }

    /** Ray's bundles of a placement group: each one's id, node and resources. */
    static JsonNode bundles(GroupSnapshot g) {
        ArrayNode bundles = F.arrayNode();
        for (int i = 0; i < g.bundles().size(); i++) {
            ObjectNode b = bundles.addObject();
            b.put("bundle_id", g.id() + "_" + i);
            b.put("node_id", g.bundleNodes().get(i));
            b.set("unit_resources", ResourceJson.write(g.bundles().get(i).amounts()));
        }
        return bundles;
    }

    /** A text that Ray shows as "" when unset. */
    static String orEmpty(String s) {
        return s != null ? s : "";
    }
}
