package beam.http;

import beam.cluster.ClusterSnapshot;
import beam.cluster.ActorSnapshot;
import beam.cluster.GroupSnapshot;
import beam.cluster.GroupState;
import beam.cluster.NodeSnapshot;
import beam.cluster.Resources;
import beam.protocol.ResourceJson;
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

    static ObjectNode of(ClusterSnapshot status) {
        ObjectNode data = F.objectNode();
        ObjectNode cs = F.objectNode();
        ObjectNode report = cs.putObject("loadMetricsReport");
        usage(report.putObject("usage"), status.liveTotal(), status.liveAvailable());
        ObjectNode byNode = report.putObject("usageByNode");
        ObjectNode active = F.objectNode();
        ArrayNode failed = F.arrayNode();
        for (NodeSnapshot n : status.nodes()) {
            String type = n.head() ? "head" : "worker";
            if (!n.alive()) {
                failed.addArray().add(n.ip()).add(type);
                continue;
            }
            active.put(type, active.has(type) ? active.get(type).asInt() + 1 : 1);
            usage(byNode.putObject(n.id()), n.total(), n.available());
        }
        report.putArray("resourceDemand");
        ArrayNode pg = report.putArray("pgDemand");
        StringBuilder text = new StringBuilder("Pending:\n");
        int pending = 0;
        for (GroupSnapshot g : status.groups()) {
            if (g.state() != GroupState.PENDING) continue;
            pending++;
            ObjectNode d = pg.addObject();
            ArrayNode bundles = d.putArray("bundles");
            g.bundles().forEach(b -> bundles.add(ResourceJson.write(b.amounts())));
            d.put("strategy", g.strategy());
            d.put("count", 1);
            d.put("beamWaitingReason", g.waitingReason());
            text.append(" placement group ").append(g.id()).append(": ").append(g.waitingReason()).append('\n');
        }
        int actorLines = 0;
        for (ActorSnapshot a : status.actors()) {
            if (a.waitingReason() == null || a.groupId() != null || ++actorLines > 20) continue;
            pending++;
            text.append(" actor ").append(a.className()).append(' ').append(a.id()).append(": ").append(a.waitingReason()).append('\n');
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

    /** Each resource but the node: ones as {@code [used, total]}. */
    private static void usage(ObjectNode into, Resources total, Resources available) {
        total.asMap().forEach((name, units) -> {
            if (name.startsWith("node:")) return;
            double t = Resources.toAmount(units);
            into.putArray(name).add(t - Resources.toAmount(available.get(name))).add(t);
        });
    }
}
