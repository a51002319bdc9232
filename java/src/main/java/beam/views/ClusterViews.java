package beam.views;

import beam.cluster.ActorHistory;
import beam.cluster.ActorSnapshot;
import beam.cluster.BundleResources;
import beam.cluster.Cluster;
import beam.cluster.ClusterSnapshot;
import beam.cluster.NodeSnapshot;
import beam.cluster.NodeAccelerator;
import beam.cluster.Resources;
import beam.codec.FrameCodec;
import beam.protocol.FactsCodec;
import beam.protocol.ResourceJson;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;

/**
 * Read-only JSON views of the cluster in Ray's shapes (tests/golden/ray-2.60-shapes.json):
 * node dicts as {@code ray.nodes()} returns them, plus the extra fields {@code ray status}
 * shows, rendered from the records the cluster copies itself into under its lock
 * ({@link ClusterSnapshot}, {@link NodeSnapshot}).
 */
public final class ClusterViews {
    /**
     * The keys of a {@code ray.nodes()} entry in Ray 2.60, in Ray's order: the first keys of
     * every node row. The rest are beam's; the reply names these ({@code ray_node_keys}) so
     * that the Python shim keeps them without a list of its own.
     */
    public static final List<String> RAY_NODE_KEYS = List.of(
            "NodeID", "Alive", "NodeManagerAddress", "NodeManagerHostname", "NodeManagerPort",
            "ObjectManagerPort", "ObjectStoreSocketName", "RayletSocketName", "MetricsExportPort",
            "MetricsAgentPort", "DashboardAgentListenPort", "NodeName", "RuntimeEnvAgentPort",
            "DeathReason", "DeathReasonMessage", "alive", "Resources", "Labels");
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private ClusterViews() {
    }

    /** The {@code cluster_state} view, taken under the cluster lock in one piece. */
    public static ObjectNode state(Cluster cluster) {
        Cluster.ResourceView view = cluster.resourceView();
        ObjectNode s = state(cluster.namespace(), view.nodes());
        Resources total = new Resources();
        Resources available = new Resources();
        for (JsonNode node : s.get("nodes")) {
            BundleResources bundles = view.bundlesByNode().get(node.get("NodeID").asText());
            if (bundles == null) continue;
            // apart from Resources and Available, which ray.nodes() shows without them, as Ray's;
            // available_resources_per_node() and total_resources_per_node() add them, as Ray's
            addBundles(((ObjectNode) node).putObject("BeamBundleResources"), bundles.total(), false);
            addBundles(((ObjectNode) node).putObject("BeamBundleAvailable"), bundles.available(), true);
            total.add(bundles.total());
            available.add(bundles.available());
        }
        addBundles((ObjectNode) s.get("total"), total, false);
        addBundles((ObjectNode) s.get("available"), available, true);
        return s;
    }

    /** Ray's bundle resources beside the nodes' own (available ones leave out those at zero, as Ray's). */
    private static void addBundles(ObjectNode into, Resources bundles, boolean dropZero) {
        for (Map.Entry<String, Long> e : bundles.asMap().entrySet()) {
            if (dropZero && e.getValue() <= 0) continue;
            into.put(e.getKey(), Resources.toAmount(e.getValue()));
        }
    }

    /** The {@code status} view, taken under the cluster lock in one piece. */
    public static ObjectNode status(Cluster cluster) {
        return status(cluster.snapshot());
    }

    /** The {@code cluster_state} view: every node, the live nodes' totals, the namespace, Ray's node keys. */
    public static ObjectNode state(String namespace, List<NodeSnapshot> nodes) {
        ObjectNode s = F.objectNode();
        ArrayNode list = s.putArray("nodes");
        Resources total = new Resources();
        Resources available = new Resources();
        for (NodeSnapshot n : nodes) {
            list.add(node(n));
            if (n.alive()) {
                total.add(n.total());
                available.add(n.available());
            }
        }
        s.set("total", ResourceJson.write(total.amounts()));
        s.set("available", ResourceJson.write(available.amounts()));
        s.put("namespace", namespace);
        ArrayNode keys = s.putArray("ray_node_keys");
        RAY_NODE_KEYS.forEach(keys::add);
        return s;
    }

    /** The {@code status} view: the state, every actor, the live groups and the recent deaths. */
    public static ObjectNode status(ClusterSnapshot snapshot) {
        ObjectNode s = state(snapshot.namespace(), snapshot.nodes());
        ArrayNode actors = s.putArray("actors");
        for (ActorSnapshot a : snapshot.actors()) actors.add(actor(a));
        s.set("placement_groups", GroupViews.byId(snapshot.groups()));
        ArrayNode deaths = s.putArray("recent_deaths");
        for (ActorHistory.Death d : snapshot.recentDeaths()) {
            deaths.add(actor(d.actor()).put("end_time_ms", d.endTimeMillis()));
        }
        ObjectNode byClass = s.putObject("dead_actors_by_class");
        snapshot.deathsByClass().forEach(byClass::put);
        s.set("tasks", TaskRows.all(snapshot));
        s.put("long_call_threshold_ms", snapshot.longCallMillis());
        long now = System.currentTimeMillis();
        s.set("long_calls", LongCalls.rows(snapshot, now));
        s.put("engine_loops_running", LongCalls.engineLoops(snapshot, now));
        return s;
    }

    /** A node's {@code Labels}: its id, Ray's other defaults where they apply, and the user's. */
    public static ObjectNode labels(NodeSnapshot n) {
        ObjectNode labels = F.objectNode();
        n.labels().forEach(labels::put);
        return labels;
    }

    /** A node's {@code Resources} (total) or {@code Available}: empty once it is dead. */
    public static ObjectNode resources(NodeSnapshot n, Resources r) {
        return n.alive() ? ResourceJson.write(r.amounts()) : F.objectNode();
    }

    static ObjectNode node(NodeSnapshot n) {
        ObjectNode o = F.objectNode();
        o.put("NodeID", n.id());
        o.put("Alive", n.alive());
        o.put("NodeManagerAddress", n.ip());
        o.put("NodeManagerHostname", n.hostname());
        o.put("NodeManagerPort", 0);
        o.put("ObjectManagerPort", 0);
        o.put("ObjectStoreSocketName", "");
        o.put("RayletSocketName", "");
        o.put("MetricsExportPort", n.facts().httpPort("metrics"));
        o.put("MetricsAgentPort", -1);
        o.put("DashboardAgentListenPort", n.facts().httpPort("agent"));
        o.put("NodeName", n.ip());
        o.put("RuntimeEnvAgentPort", -1);
        o.put("DeathReason", n.alive() ? 0 : 1);
        o.put("DeathReasonMessage", n.deathReason());
        o.put("alive", n.alive());
        o.set("Resources", resources(n, n.total()));
        o.set("Labels", labels(n));
        o.set("Available", resources(n, n.available()));
        o.put("IsHead", n.head());
        ArrayNode gpus = o.putArray("GpuIds");
        n.gpuIds().forEach(gpus::add);
        o.set("Accelerators", FactsCodec.accelerators(NodeAccelerator.describeAll(n.accelerators())));
        o.put("StartTimeMs", n.startedMillis());
        if (n.rttMicros() >= 0) o.put("BeamHeartbeatRttMicros", n.rttMicros());
        o.set("BeamFacts", FactsCodec.hostFacts(n.facts()));
        if (n.telemetry().tool() != null || n.telemetry().problem() != null) o.set("BeamTelemetry", FactsCodec.telemetry(n.telemetry()));
        return o;
    }

    static ObjectNode actor(ActorSnapshot a) {
        ObjectNode o = F.objectNode();
        o.put("actor_id", a.id());
        o.put("class_name", a.className());
        if (a.name() != null) o.put("name", a.name());
        o.put("state", a.state().name());
        o.put("pid", a.pid());
        o.put("node_id", a.nodeId());
        o.put("node_ip", a.nodeIp());
        ArrayNode gpus = o.putArray("gpu_ids");
        a.gpuIds().forEach(gpus::add);
        o.set("accelerator_ids", FrameCodec.json().valueToTree(a.deviceIds()));
        o.put("placement_group_id", a.groupId());
        o.put("bundle_index", a.bundleIndex());
        o.set("resources", ResourceJson.write(a.request().amounts()));
        if (a.deathMessage() != null) o.put("death_message", a.deathMessage());
        if (a.waitingReason() != null) o.put("beam_waiting_reason", a.waitingReason());
        o.put("job_id", a.jobId());
        o.put("namespace", a.namespace());
        o.put("is_detached", a.detached());
        return o;
    }
}
