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
 * @param calls         actor calls: the pending and running ones (at most 10,000), oldest first per
 *                      actor, then the most recent ended ones (at most 1,000), newest first
 * @param longCallMillis the age past which a running call is named as long
 */
public record ClusterSnapshot(String namespace, List<NodeSnapshot> nodes, List<ActorSnapshot> actors,
                              List<GroupSnapshot> groups, List<ActorHistory.Death> recentDeaths,
                              Map<String, Long> deathsByClass, int callsInFlight,
                              List<CallSnapshot> calls, long longCallMillis) {
    public ClusterSnapshot {
        nodes = List.copyOf(nodes);
        actors = List.copyOf(actors);
        groups = List.copyOf(groups);
        recentDeaths = List.copyOf(recentDeaths);
        calls = List.copyOf(calls);
        deathsByClass = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(deathsByClass));
    }

    /** The calls running longer than {@link #longCallMillis} at {@code nowMillis}, oldest first. */
    public List<CallSnapshot> longCalls(long nowMillis) {
        return calls.stream().filter(c -> c.ageMillis(nowMillis) >= longCallMillis)
                .sorted(java.util.Comparator.comparingLong(CallSnapshot::startMillis)).toList();
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
