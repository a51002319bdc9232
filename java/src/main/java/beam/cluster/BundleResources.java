package beam.cluster;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The resources a placed group adds to its nodes, named as Ray names them: for each bundle
 * {@code i} of group {@code <pg>}, {@code <R>_group_<i>_<pg>} per resource R it reserved and
 * {@code bundle_group_<i>_<pg>} = 1000, and for the group {@code <R>_group_<pg>} and
 * {@code bundle_group_<pg>} summed over its bundles. An actor in a bundle takes what it asked
 * for from the bundle's {@code <R>_group_} entries and 0.001 of both {@code bundle_group_}
 * entries, as Ray's does. Only bundles on live nodes count; a removed group adds nothing.
 *
 * @param total     what cluster_resources() adds
 * @param available what available_resources() adds (entries at zero are left out by the view)
 */
public record BundleResources(Resources total, Resources available) {
    static final long BUNDLE_UNITS = 1000 * Resources.UNIT;
    static final long ACTOR_MARK = Resources.toUnits(0.001);

    /** Ray's bundle resources of {@code groups}; call with the cluster lock held. */
    static BundleResources of(Collection<PlacementGroup> groups) {
        BundleResources all = new BundleResources(new Resources(), new Resources());
        for (BundleResources onNode : perNode(groups).values()) {
            all.total.add(onNode.total);
            all.available.add(onNode.available);
        }
        return all;
    }

    /**
     * The same per node id, as each node holds them (Ray's {@code available_resources_per_node()}:
     * a group's {@code <R>_group_<pg>} on a node sums only its bundles there). Cluster lock held.
     */
    static Map<String, BundleResources> perNode(Collection<PlacementGroup> groups) {
        Map<String, BundleResources> out = new LinkedHashMap<>();
        for (PlacementGroup g : groups) {
            if (g.state != GroupState.CREATED) continue;
            for (Bundle b : g.bundles) {
                if (b.node == null || !b.node.alive) continue;
                BundleResources on = out.computeIfAbsent(b.node.id, id -> new BundleResources(new Resources(), new Resources()));
                add(on.total, b.spec, BUNDLE_UNITS, b.index, g.id);
                add(on.available, b.available, BUNDLE_UNITS - ACTOR_MARK * b.actors, b.index, g.id);
            }
        }
        return out;
    }

    private static void add(Resources into, Resources of, long bundleMark, int index, String pg) {
        for (var e : of.asMap().entrySet()) {
            if (e.getKey().startsWith("node:")) continue;
            plus(into, e.getKey() + "_group_" + index + "_" + pg, e.getValue());
            plus(into, e.getKey() + "_group_" + pg, e.getValue());
        }
        plus(into, "bundle_group_" + index + "_" + pg, bundleMark);
        plus(into, "bundle_group_" + pg, bundleMark);
    }

    private static void plus(Resources into, String name, long units) {
        into.set(name, into.get(name) + units);
    }
}
