package beam.cluster;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A placement group and its bundles. Its {@link GroupState} machine is drawn once, on
 * {@link PlacementGroups}, which makes every transition; fields are guarded by the
 * {@link Cluster} lock.
 */
final class PlacementGroup {
    final String id;
    final String name;
    final String strategy;
    final List<Bundle> bundles = new ArrayList<>();
    final Client owner;
    final boolean detached;
    /** When it was created, on the cluster's clock. */
    final long createdNanos;
    final Set<Client> watchers = new LinkedHashSet<>();
    /** Actors created in this group and still in the cluster's table (Cluster keeps it). */
    final Set<ActorRecord> actors = new LinkedHashSet<>();
    GroupState state = GroupState.PENDING;
    double creationLatencyMs;
    int attempts;
    long lastWarningNanos;
    String waitingReason = "";
    /** Judged with {@link #waitingReason}: no node set of the cluster as it is could ever hold it. */
    boolean infeasible;

    /** {@code selectors}: one per bundle (Ray's bundle_label_selector), or empty for none. */
    PlacementGroup(String id, String name, String strategy, List<Resources> specs, List<LabelSelector> selectors,
                   Client owner, boolean detached, long createdNanos) {
        this.id = id;
        this.createdNanos = createdNanos;
        this.name = name;
        this.strategy = strategy;
        for (int i = 0; i < specs.size(); i++) {
            bundles.add(new Bundle(i, specs.get(i), selectors.isEmpty() ? LabelSelector.NONE : selectors.get(i)));
        }
        this.owner = owner;
        this.detached = detached;
    }
}
