package beam.views;

import beam.cluster.GroupSnapshot;
import beam.cluster.GroupState;
import beam.cluster.Resources;
import beam.codec.FrameCodec;
import beam.protocol.ResourceJson;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Placement groups in Ray's shapes: one group's {@code placement_group_table(pg)} entry, and
 * every group as compact rows written straight to bytes (no JSON tree), so that a table of
 * many groups costs one pass and no tree on the daemon and no dict per group on the wire.
 * The driver expands each row into Ray's entry (python/ray/_beam/api/pgs.py); docs/PROTOCOL.md,
 * "pg_table", gives the columns.
 *
 * <pre>{"rows": [[id, name, strategy, state, [bundle, ...], [node index per bundle, -1 if unplaced],
 *   latency_ms, attempts, waiting_reason or null, scheduling_state], ...], "nodes": [node id, ...],
 *   "columns": [...]}</pre>
 */
public final class GroupViews {
    static final String[] COLUMNS = {"placement_group_id", "name", "strategy", "state", "bundles", "bundle_nodes",
            "creation_latency_ms", "scheduling_attempt", "waiting_reason", "scheduling_state"};
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private GroupViews() {
    }

    /** Ray's placement_group_table(pg) shape, with beam's waiting reason and time while PENDING. */
    public static ObjectNode entry(GroupSnapshot g) {
        ObjectNode e = F.objectNode();
        e.put("placement_group_id", g.id());
        e.put("name", g.name());
        ObjectNode bundles = e.putObject("bundles");
        ObjectNode toNode = e.putObject("bundles_to_node_id");
        for (int i = 0; i < g.bundles().size(); i++) {
            bundles.set(String.valueOf(i), ResourceJson.write(g.bundles().get(i).amounts()));
            if (g.bundleNodes().get(i) != null) toNode.put(String.valueOf(i), g.bundleNodes().get(i));
        }
        e.put("strategy", g.strategy());
        e.put("state", g.state().name());
        e.set("stats", stats(g));
        if (g.state() == GroupState.PENDING) {
            e.put("beam_waiting_reason", g.waitingReason());
            e.put("beam_waiting_seconds", round3(g.waitedSeconds()));
        }
        return e;
    }

    /** Ray's PlacementGroupStats of one group. */
    public static ObjectNode stats(GroupSnapshot g) {
        ObjectNode stats = F.objectNode();
        stats.put("end_to_end_creation_latency_ms", round3(g.creationLatencyMs()));
        stats.put("scheduling_latency_ms", round3(g.creationLatencyMs()));
        stats.put("scheduling_attempt", g.attempts());
        stats.put("highest_retry_delay_ms", 0.0);
        stats.put("scheduling_state", schedulingState(g));
        return stats;
    }

    /** Ray's scheduling_state: a group no node set could ever hold is INFEASIBLE, a merely busy one NO_RESOURCES. */
    private static String schedulingState(GroupSnapshot g) {
        return switch (g.state()) {
            case PENDING, RESCHEDULING -> g.infeasible() ? "INFEASIBLE" : "NO_RESOURCES";
            case CREATED -> "FINISHED";
            case REMOVED -> "REMOVED";
        };
    }

    /** Groups by id, each as its {@link #entry} (the status view's {@code placement_groups}). */
    public static ObjectNode byId(List<GroupSnapshot> groups) {
        ObjectNode all = F.objectNode();
        for (GroupSnapshot g : groups) all.set(g.id(), entry(g));
        return all;
    }

    /** Every group as the compact rows of the class comment, JSON bytes. */
    public static byte[] rows(List<GroupSnapshot> groups) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(256, groups.size() * 128));
        Map<String, Integer> nodeIndex = new HashMap<>();
        try (JsonGenerator g = FrameCodec.json().getFactory().createGenerator(out)) {
            g.writeStartObject();
            g.writeArrayFieldStart("rows");
            for (GroupSnapshot pg : groups) row(g, pg, nodeIndex);
            g.writeEndArray();
            g.writeArrayFieldStart("nodes");
            String[] byIndex = new String[nodeIndex.size()];
            nodeIndex.forEach((n, i) -> byIndex[i] = n);
            for (String n : byIndex) g.writeString(n);
            g.writeEndArray();
            g.writeArrayFieldStart("columns");
            for (String c : COLUMNS) g.writeString(c);
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("writing to memory failed", e);
        }
        return out.toByteArray();
    }

    private static void row(JsonGenerator g, GroupSnapshot pg, Map<String, Integer> nodeIndex) throws IOException {
        g.writeStartArray();
        g.writeString(pg.id());
        g.writeString(pg.name());
        g.writeString(pg.strategy());
        g.writeString(pg.state().name());
        g.writeStartArray();
        for (Resources b : pg.bundles()) ResourceJson.write(b.amounts(), g);
        g.writeEndArray();
        g.writeStartArray();
        for (String node : pg.bundleNodes()) {
            g.writeNumber(node != null ? nodeIndex.computeIfAbsent(node, n -> nodeIndex.size()) : -1);
        }
        g.writeEndArray();
        g.writeNumber(round3(pg.creationLatencyMs()));
        g.writeNumber(pg.attempts());
        if (pg.waitingReason() != null) g.writeString(pg.waitingReason());
        else g.writeNull();
        g.writeString(schedulingState(pg));
        g.writeEndArray();
    }

    private static double round3(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
