package beam.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code /api/cluster_status}'s data in the Ray dashboard's shape: {@code autoscalingStatus}
 * (text), {@code autoscalingError} and {@code clusterStatus}, whose {@code loadMetricsReport}
 * gives each resource as {@code [used, total]} (cluster-wide and per node) and the demands of
 * pending placement groups, and whose {@code autoscalerReport} counts live and failed nodes.
 */
final class ClusterStatusView {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private ClusterStatusView() {
    }

    static ObjectNode of(ObjectNode status) {
        ObjectNode data = F.objectNode();
        ObjectNode cs = F.objectNode();
        ObjectNode report = cs.putObject("loadMetricsReport");
        ObjectNode usage = report.putObject("usage");
        JsonNode total = status.path("total");
        JsonNode available = status.path("available");
        total.fields().forEachRemaining(e -> {
            if (e.getKey().startsWith("node:")) return;
            double t = e.getValue().asDouble();
            usage.putArray(e.getKey()).add(t - available.path(e.getKey()).asDouble()).add(t);
        });
        ObjectNode byNode = report.putObject("usageByNode");
        ObjectNode active = F.objectNode();
        ArrayNode failed = F.arrayNode();
        for (JsonNode n : status.path("nodes")) {
            String type = n.path("IsHead").asBoolean() ? "head" : "worker";
            if (!n.path("Alive").asBoolean()) {
                failed.addArray().add(n.path("NodeManagerAddress").asText()).add(type);
                continue;
            }
            active.put(type, active.path(type).asInt() + 1);
            ObjectNode u = byNode.putObject(n.path("NodeID").asText());
            n.path("Resources").fields().forEachRemaining(e -> {
                if (e.getKey().startsWith("node:")) return;
                double t = e.getValue().asDouble();
                u.putArray(e.getKey()).add(t - n.path("Available").path(e.getKey()).asDouble()).add(t);
            });
        }
        report.putArray("resourceDemand");
        ArrayNode pg = report.putArray("pgDemand");
        StringBuilder text = new StringBuilder("Pending:\n");
        int pending = 0;
        for (JsonNode g : status.path("placement_groups")) {
            if (!g.path("state").asText().equals("PENDING")) continue;
            pending++;
            ObjectNode d = pg.addObject();
            ArrayNode bundles = d.putArray("bundles");
            g.path("bundles").forEach(b -> bundles.add(b.deepCopy()));
            d.put("strategy", g.path("strategy").asText());
            d.put("count", 1);
            d.put("beamWaitingReason", g.path("beam_waiting_reason").asText());
            text.append(" placement group ").append(g.path("placement_group_id").asText()).append(": ")
                    .append(g.path("beam_waiting_reason").asText()).append('\n');
        }
        if (pending == 0) text.append(" (no resource demands)\n");
        ObjectNode auto = cs.putObject("autoscalerReport");
        auto.set("activeNodes", active);
        auto.putObject("pendingLaunches");
        auto.putArray("pendingNodes");
        auto.set("failedNodes", failed);
        cs.put("time", System.currentTimeMillis() / 1000.0);
        data.put("autoscalingStatus", "Active nodes: " + active + "\nFailed nodes: " + failed.size() + "\n" + text);
        data.putNull("autoscalingError");
        data.set("clusterStatus", cs);
        return data;
    }
}
