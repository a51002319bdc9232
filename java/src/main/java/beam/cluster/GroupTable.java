package beam.cluster;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Placement groups copied into {@link GroupSnapshot} records, for placement_group_table()
 * and the status view; views/GroupViews renders them. Called with the cluster lock held.
 * The copies are flat (a bundle's resources are shared, never changed once made), so
 * listing every group of a large cluster holds the lock for one pass and no JSON.
 */
final class GroupTable {
    private GroupTable() {
    }

    /** {@code nowNanos}: the cluster's clock now, from which a pending group's age is taken. */
    static List<GroupSnapshot> snapshot(Collection<PlacementGroup> groups, boolean withRemoved, long now) {
        List<GroupSnapshot> out = new ArrayList<>(groups.size());
        for (PlacementGroup g : groups) {
            if (withRemoved || g.state != GroupState.REMOVED) out.add(snapshot(g, now));
        }
        return out;
    }

    static GroupSnapshot snapshot(PlacementGroup g, long nowNanos) {
        List<Resources> bundles = new ArrayList<>(g.bundles.size());
        List<String> nodes = new ArrayList<>(g.bundles.size());
        for (Bundle b : g.bundles) {
            bundles.add(b.spec);
            nodes.add(b.node != null && g.state != GroupState.REMOVED ? b.node.id : null);
        }
        boolean pending = g.state == GroupState.PENDING;
        return new GroupSnapshot(g.id, g.name, g.strategy, g.state, bundles, nodes, pending ? 0.0 : g.creationLatencyMs,
                g.attempts, pending ? g.waitingReason : null, pending ? (nowNanos - g.createdNanos) / 1e9 : 0.0,
                pending && g.infeasible);
    }
}
