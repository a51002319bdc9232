package beam.cluster;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A placement group and its bundles.
 *
 * <p>State machine (under the {@link Cluster} lock): PENDING until every bundle fits at
 * once, then CREATED (all bundles reserved, watchers get {@code pg_ready}); REMOVED when the
 * owner removes it or goes away (actors inside are killed, reservations returned). A PENDING
 * group is retried whenever resources are freed or a node joins, and tells its watchers why
 * it waits: at once, and every 10 s while it keeps waiting. When a node dies, a CREATED
 * group with bundles there goes to RESCHEDULING (as in Ray): the surviving bundles stay,
 * the lost ones are placed again when capacity allows, and it is CREATED again.
 */
final class PlacementGroup {
    enum State { PENDING, CREATED, RESCHEDULING, REMOVED }

    final String id;
    final String name;
    final String strategy;
    final List<Bundle> bundles = new ArrayList<>();
    final Client owner;
    final boolean detached;
    final long createdNanos = System.nanoTime();
    final Set<Client> watchers = new LinkedHashSet<>();
    /** Actors created in this group and still in the cluster's table (Cluster keeps it). */
    final Set<ActorRecord> actors = new LinkedHashSet<>();
    State state = State.PENDING;
    double creationLatencyMs;
    int attempts;
    long lastWarningNanos;
    String waitingReason = "";

    PlacementGroup(String id, String name, String strategy, List<Resources> specs, Client owner, boolean detached) {
        this.id = id;
        this.name = name;
        this.strategy = strategy;
        for (int i = 0; i < specs.size(); i++) bundles.add(new Bundle(i, specs.get(i)));
        this.owner = owner;
        this.detached = detached;
    }
}
