package beam.cluster;

import java.util.List;
import java.util.Map;

/**
 * The cluster as it was at one moment, copied under its lock in one piece
 * ({@link Cluster#snapshot}): what every view renders (Ray's shapes, the state API, the
 * dashboard, Prometheus) without taking the lock again or reading another view's JSON.
 *
 * @param nodes         every node that ever joined, in join order, dead ones included
 * @param actors        every actor in the table: live ones, and dead ones whose process is not gone yet
 * @param groups        every placement group that is not removed (removed ones are placement_group_table's)
 * @param recentDeaths  the most recent actor deaths, newest first
 * @param deathsByClass actor deaths ever, per class
 * @param callsInFlight calls sent to an actor and not answered yet
 */
public record ClusterSnapshot(String namespace, List<NodeSnapshot> nodes, List<ActorSnapshot> actors,
                              List<GroupSnapshot> groups, List<ActorHistory.Death> recentDeaths,
                              Map<String, Long> deathsByClass, int callsInFlight) {
    public ClusterSnapshot {
        nodes = List.copyOf(nodes);
        actors = List.copyOf(actors);
        groups = List.copyOf(groups);
        recentDeaths = List.copyOf(recentDeaths);
        deathsByClass = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(deathsByClass));
    }

    /** The live nodes' total resources. */
    public Resources liveTotal() {
        Resources r = new Resources();
        for (NodeSnapshot n : nodes) if (n.alive()) r.add(n.total());
        return r;
    }

    /** The live nodes' available resources. */
    public Resources liveAvailable() {
        Resources r = new Resources();
        for (NodeSnapshot n : nodes) if (n.alive()) r.add(n.available());
        return r;
    }
}
