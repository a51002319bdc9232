package beam.metrics;

import beam.cluster.ActorRecord;
import beam.cluster.ActorSnapshot;
import beam.cluster.ClusterSnapshot;
import beam.cluster.GroupSnapshot;
import beam.cluster.GroupState;
import beam.cluster.NodeSnapshot;
import beam.cluster.Resources;
import beam.views.RayStates;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The head's cluster-wide metrics, read from one snapshot of the cluster (the cluster lock is not held here). */
final class ClusterStats {
    private ClusterStats() {
    }

    static void add(List<MetricSnapshot> out, NodeMetrics.ClusterSource source) {
        ClusterSnapshot s = source.status();
        resources(out, s);
        actors(out, s);
        groups(out, s);
        nodes(out, s);
        out.add(counter("beam_actor_calls", "Actor calls routed by the head", source.calls()));
        out.add(counter("beam_actor_calls_failed",
                "Actor calls that failed: the method raised, or the actor died or did not exist", source.failedCalls()));
    }

    private static void resources(List<MetricSnapshot> out, ClusterSnapshot s) {
        Map<Labels, Double> state = NodeMetrics.points();
        Map<Labels, Double> total = NodeMetrics.points();
        for (NodeSnapshot n : s.nodes()) {
            if (!n.alive()) continue;
            String ip = n.ip();
            String id = n.id();
            for (var e : n.total().asMap().entrySet()) {
                if (e.getKey().startsWith("node:")) continue;
                double t = Resources.toAmount(e.getValue());
                double a = Resources.toAmount(n.available().get(e.getKey()));
                state.put(NodeMetrics.labels("Name", e.getKey(), "State", "USED", "NodeAddress", ip, "NodeId", id), t - a);
                state.put(NodeMetrics.labels("Name", e.getKey(), "State", "AVAILABLE", "NodeAddress", ip, "NodeId", id), a);
                total.put(NodeMetrics.labels("Name", e.getKey(), "NodeAddress", ip, "NodeId", id), t);
            }
        }
        out.add(NodeMetrics.gauge("ray_resources", "Logical resources per node, USED or AVAILABLE (Ray's metric)", state));
        out.add(NodeMetrics.gauge("beam_resources_total", "Logical resources per node, in total", total));
    }

    /** Actors by Ray's state names ({@link RayStates#actor}); DEAD from every death, not only the ones still listed. */
    private static void actors(List<MetricSnapshot> out, ClusterSnapshot s) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (ActorSnapshot a : s.actors()) {
            if (a.state() == ActorRecord.State.DEAD) continue; // counted below, from every death
            counts.merge(RayStates.actor(a.state()) + "\0" + a.className(), 1, Integer::sum);
        }
        Map<Labels, Double> points = NodeMetrics.points();
        counts.forEach((k, v) -> {
            String[] p = k.split("\0", 2);
            points.put(NodeMetrics.labels("State", p[0], "Name", p[1]), (double) v);
        });
        s.deathsByClass().forEach((name, deaths) ->
                points.put(NodeMetrics.labels("State", "DEAD", "Name", name), (double) deaths));
        out.add(NodeMetrics.gauge("ray_actors", "Actors by state and class (Ray's metric; DEAD counts every death)", points));
    }

    private static void groups(List<MetricSnapshot> out, ClusterSnapshot s) {
        Map<String, Integer> byState = new LinkedHashMap<>();
        for (String st : List.of("PENDING", "CREATED", "RESCHEDULING")) byState.put(st, 0);
        Map<Labels, Double> waiting = NodeMetrics.points();
        for (GroupSnapshot g : s.groups()) {
            byState.merge(g.state().name(), 1, Integer::sum);
            if (g.state() == GroupState.PENDING) {
                // an unnamed group's label reads "null", as it always has
                waiting.put(NodeMetrics.labels("PlacementGroupId", g.id(), "Name", String.valueOf(g.name())),
                        Math.round(g.waitedSeconds() * 1000) / 1000.0);
            }
        }
        Map<Labels, Double> points = NodeMetrics.points();
        byState.forEach((st, n) -> points.put(NodeMetrics.labels("State", st), (double) n));
        out.add(NodeMetrics.gauge("ray_placement_groups", "Placement groups by state (Ray's metric)", points));
        out.add(NodeMetrics.gauge("beam_placement_group_pending_seconds",
                "How long each pending placement group has waited, in seconds", waiting));
    }

    private static void nodes(List<MetricSnapshot> out, ClusterSnapshot s) {
        double[] active = new double[2];
        double[] failed = new double[2];
        Map<Labels, Double> rtt = NodeMetrics.points();
        for (NodeSnapshot n : s.nodes()) {
            int type = n.head() ? 0 : 1;
            if (n.alive()) active[type]++;
            else failed[type]++;
            if (n.alive() && n.rttMicros() >= 0) {
                rtt.put(NodeMetrics.labels("NodeAddress", n.ip(), "NodeId", n.id()), n.rttMicros() / 1e6);
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
