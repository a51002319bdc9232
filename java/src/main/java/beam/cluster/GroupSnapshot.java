package beam.cluster;

import java.util.List;

/**
 * One placement group as it was at a moment, for views: plain values copied under the
 * cluster lock, which stay as they were while the group moves on.
 *
 * @param bundles           each bundle's resources, by bundle index (never changed once made)
 * @param bundleNodes       the node id of each bundle, null while unplaced and once removed
 * @param creationLatencyMs how long placing it took; 0 while PENDING
 * @param waitingReason     why it waits; null unless PENDING
 * @param waitedSeconds     how long it has waited; 0 unless PENDING
 * @param infeasible        PENDING and no live node set could ever hold it (Ray's scheduling_state INFEASIBLE)
 */
public record GroupSnapshot(String id, String name, String strategy, GroupState state, List<Resources> bundles,
                            List<String> bundleNodes, double creationLatencyMs, int attempts, String waitingReason,
                            double waitedSeconds, boolean infeasible) {
    public GroupSnapshot {
        bundles = List.copyOf(bundles);
        bundleNodes = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(bundleNodes));
    }
}
