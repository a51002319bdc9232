package beam.cluster;

import beam.codec.FrameCodec;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * placement_group_table() of every group as compact rows, written straight to bytes (no
 * JSON tree): a cluster of 100,000 groups lists in under a second (bench/big_tables.py),
 * where Ray's dict per group, built as a tree and parsed by the driver, took 4 s for 42 MB.
 * The driver expands each row into Ray's entry (python/ray/_beam/api/pgs.py); docs/PROTOCOL.md,
 * "pg_table", gives the columns. Called with the cluster lock held.
 *
 * <pre>{"nodes": [node id, ...], "columns": [...], "rows": [[id, name, strategy, state,
 *   [bundle, ...], [node index per bundle, -1 if unplaced], latency_ms, attempts,
 *   waiting_reason or null], ...]}</pre>
 */
final class GroupTable {
    static final String[] COLUMNS = {"placement_group_id", "name", "strategy", "state", "bundles", "bundle_nodes",
            "creation_latency_ms", "scheduling_attempt", "waiting_reason"};

    private GroupTable() {
    }

    static byte[] write(Collection<PlacementGroup> groups) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(256, groups.size() * 128));
        Map<Node, Integer> nodeIndex = new HashMap<>();
        try (JsonGenerator g = FrameCodec.json().getFactory().createGenerator(out)) {
            g.writeStartObject();
            g.writeArrayFieldStart("rows");
            for (PlacementGroup pg : groups) row(g, pg, nodeIndex);
            g.writeEndArray();
            g.writeArrayFieldStart("nodes");
            Node[] byIndex = new Node[nodeIndex.size()];
            nodeIndex.forEach((n, i) -> byIndex[i] = n);
            for (Node n : byIndex) g.writeString(n.id);
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

    private static void row(JsonGenerator g, PlacementGroup pg, Map<Node, Integer> nodeIndex) throws IOException {
        g.writeStartArray();
        g.writeString(pg.id);
        g.writeString(pg.name);
        g.writeString(pg.strategy);
        g.writeString(pg.state.name());
        g.writeStartArray();
        for (Bundle b : pg.bundles) b.spec.write(g);
        g.writeEndArray();
        g.writeStartArray();
        for (Bundle b : pg.bundles) {
            boolean shown = b.node != null && pg.state != PlacementGroup.State.REMOVED;
            g.writeNumber(shown ? nodeIndex.computeIfAbsent(b.node, n -> nodeIndex.size()) : -1);
        }
        g.writeEndArray();
        boolean done = pg.state != PlacementGroup.State.PENDING;
        g.writeNumber(done ? Math.round(pg.creationLatencyMs * 1000) / 1000.0 : 0.0);
        g.writeNumber(pg.attempts);
        if (pg.state == PlacementGroup.State.PENDING) g.writeString(pg.waitingReason);
        else g.writeNull();
        g.writeEndArray();
    }
}
