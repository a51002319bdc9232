package beam.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The head's cluster-wide metrics, read from one status view (the cluster lock is not held here). */
final class ClusterStats {
    private ClusterStats() {
    }

    static void add(List<MetricSnapshot> out, NodeMetrics.ClusterSource source) {
        ObjectNode s = source.status();
        resources(out, s);
        actors(out, s);
        groups(out, s);
        nodes(out, s);
        out.add(counter("beam_actor_calls", "Actor calls routed by the head", source.calls()));
        out.add(counter("beam_actor_calls_failed",
                "Actor calls that failed: the method raised, or the actor died or did not exist", source.failedCalls()));
    }

    private static void resources(List<MetricSnapshot> out, ObjectNode s) {
        Map<Labels, Double> state = NodeMetrics.points();
        Map<Labels, Double> total = NodeMetrics.points();
        for (JsonNode n : s.path("nodes")) {
            if (!n.path("Alive").asBoolean()) continue;
            String ip = n.path("NodeManagerAddress").asText();
            String id = n.path("NodeID").asText();
            JsonNode avail = n.path("Available");
            for (var it = n.path("Resources").fields(); it.hasNext(); ) {
                var e = it.next();
                if (e.getKey().startsWith("node:")) continue;
                double t = e.getValue().asDouble();
                double a = avail.path(e.getKey()).asDouble();
                state.put(NodeMetrics.labels("Name", e.getKey(), "State", "USED", "NodeAddress", ip, "NodeId", id), t - a);
                state.put(NodeMetrics.labels("Name", e.getKey(), "State", "AVAILABLE", "NodeAddress", ip, "NodeId", id), a);
                total.put(NodeMetrics.labels("Name", e.getKey(), "NodeAddress", ip, "NodeId", id), t);
            }
        }
        out.add(NodeMetrics.gauge("ray_resources", "Logical resources per node, USED or AVAILABLE (Ray's metric)", state));
        out.add(NodeMetrics.gauge("beam_resources_total", "Logical resources per node, in total", total));
    }

    /** Ray's actor states: PENDING and STARTING are both PENDING_CREATION there. */
    private static void actors(List<MetricSnapshot> out, ObjectNode s) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (JsonNode a : s.path("actors")) {
            String state = switch (a.path("state").asText()) {
                case "ALIVE" -> "ALIVE";
                case "DEAD" -> null; // counted below, from every death
                default -> "PENDING_CREATION";
            };
            if (state != null) counts.merge(state + "\0" + a.path("class_name").asText(), 1, Integer::sum);
        }
        Map<Labels, Double> points = NodeMetrics.points();
        counts.forEach((k, v) -> {
            String[] p = k.split("\0", 2);
            points.put(NodeMetrics.labels("State", p[0], "Name", p[1]), (double) v);
        });
        s.path("dead_actors_by_class").fields().forEachRemaining(e ->
                points.put(NodeMetrics.labels("State", "DEAD", "Name", e.getKey()), e.getValue().asDouble()));
        out.add(NodeMetrics.gauge("ray_actors", "Actors by state and class (Ray's metric; DEAD counts every death)", points));
    }

    private static void groups(List<MetricSnapshot> out, ObjectNode s) {
        Map<String, Integer> byState = new LinkedHashMap<>();
        for (String st : List.of("PENDING", "CREATED", "RESCHEDULING")) byState.put(st, 0);
        Map<Labels, Double> waiting = NodeMetrics.points();
        for (JsonNode g : s.path("placement_groups")) {
            String st = g.path("state").asText();
            byState.merge(st, 1, Integer::sum);
            if (st.equals("PENDING")) {
                waiting.put(NodeMetrics.labels("PlacementGroupId", g.path("placement_group_id").asText(),
                        "Name", g.path("name").asText()), g.path("beam_waiting_seconds").asDouble());
            }
        }
        Map<Labels, Double> points = NodeMetrics.points();
        byState.forEach((st, n) -> points.put(NodeMetrics.labels("State", st), (double) n));
        out.add(NodeMetrics.gauge("ray_placement_groups", "Placement groups by state (Ray's metric)", points));
        out.add(NodeMetrics.gauge("beam_placement_group_pending_seconds",
                "How long each pending placement group has waited, in seconds", waiting));
    }

    private static void nodes(List<MetricSnapshot> out, ObjectNode s) {
        double[] active = new double[2];
        double[] failed = new double[2];
        Map<Labels, Double> rtt = NodeMetrics.points();
        for (JsonNode n : s.path("nodes")) {
            int type = n.path("IsHead").asBoolean() ? 0 : 1;
            if (n.path("Alive").asBoolean()) active[type]++;
            else failed[type]++;
            if (n.path("Alive").asBoolean() && n.has("BeamHeartbeatRttMicros")) {
                rtt.put(NodeMetrics.labels("NodeAddress", n.path("NodeManagerAddress").asText(),
                        "NodeId", n.path("NodeID").asText()), n.path("BeamHeartbeatRttMicros").asDouble() / 1e6);
            }
        }
        out.add(NodeMetrics.gauge("ray_cluster_active_nodes", "Live nodes by type (Ray's metric)",
                Map.of(NodeMetrics.labels("node_type", "head"), active[0], NodeMetrics.labels("node_type", "worker"), active[1])));
        out.add(NodeMetrics.gauge("ray_cluster_failed_nodes", "Nodes that died or left, by type (Ray's metric)",
                Map.of(NodeMetrics.labels("node_type", "head"), failed[0], NodeMetrics.labels("node_type", "worker"), failed[1])));
        out.add(NodeMetrics.gauge("beam_node_heartbeat_rtt_seconds",
                "The last heartbeat round trip from the head to each joined node, in seconds", rtt));
    }

    private static CounterSnapshot counter(String name, String help, long value) {
        return CounterSnapshot.builder().name(name).help(help)
                .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().value(value).build()).build();
    }
}
