package beam.cluster;

import java.util.ArrayList;
import java.util.List;

/**
 * The placement groups by owner, by watcher and by node, so that a client leaving or a node
 * lost costs its own groups, not a pass over every group (up to 100,000 live ones and the
 * 10,000 removed ones kept for placement_group_table(), once per killed actor: each killed
 * actor's worker connection is a client leaving). A group is filed under its owner from
 * creation to removal unless it is detached, under each of its {@link PlacementGroup#watchers}
 * while they wait for it, and under each node one of its bundles is placed on until it is
 * removed or that node is lost. Guarded by the cluster lock.
 */
final class GroupIndex {
    private final IdentityIndex<Client, PlacementGroup> byOwner = new IdentityIndex<>();
    private final IdentityIndex<Client, PlacementGroup> byWatcher = new IdentityIndex<>();
    private final IdentityIndex<Node, PlacementGroup> byNode = new IdentityIndex<>();

    void created(PlacementGroup g) {
        if (!g.detached) byOwner.add(g.owner, g);
    }

    /** {@code client} waits for {@code g} to be placed or removed. */
    void watch(PlacementGroup g, Client client) {
        if (g.watchers.add(client)) byWatcher.add(client, g);
    }

    /** Every watcher of {@code g} was told (ready or removed): none waits any more. */
    void watchersTold(PlacementGroup g) {
        for (Client w : g.watchers) byWatcher.remove(w, g);
        g.watchers.clear();
    }

    /** A bundle of {@code g} was placed on {@code node}. */
    void placed(PlacementGroup g, Node node) {
        byNode.add(node, g);
    }

    /** {@code g} is removed: it leaves every index (its watchers were told already). */
    void removed(PlacementGroup g) {
        byOwner.remove(g.owner, g);
        for (Bundle b : g.bundles) if (b.node != null) byNode.remove(b.node, g);
        watchersTold(g);
    }

    /** The groups {@code owner} owns and that are not removed, copied (the caller removes them). */
    List<PlacementGroup> ownedBy(Client owner) {
        return new ArrayList<>(byOwner.get(owner));
    }

    /** {@code client} is gone: it watches nothing any more. */
    void forgetWatcher(Client client) {
        for (PlacementGroup g : byWatcher.take(client)) g.watchers.remove(client);
    }

    /** {@code node} is lost: the groups with a bundle on it, which it leaves. */
    List<PlacementGroup> lostWith(Node node) {
        return new ArrayList<>(byNode.take(node));
    }

    /** How many owners, watchers and nodes have an entry (tests: nothing is left behind). */
    int keys() {
        return byOwner.keys() + byWatcher.keys() + byNode.keys();
    }
}
