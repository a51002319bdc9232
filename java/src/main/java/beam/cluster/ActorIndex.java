package beam.cluster;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The actors in the table by owner and by placement group ({@link PlacementGroup#actors}), so
 * that a client leaving or a group removed costs its own actors, not a pass over every actor
 * (an actor's worker leaving owns none). Guarded by the cluster lock.
 */
final class ActorIndex {
    private final Map<Client, Set<ActorRecord>> byOwner = new IdentityHashMap<>();

    void add(ActorRecord actor) {
        if (actor.group != null) actor.group.actors.add(actor);
        byOwner.computeIfAbsent(actor.owner, o -> new LinkedHashSet<>()).add(actor);
    }

    void remove(ActorRecord actor) {
        if (actor.group != null) actor.group.actors.remove(actor);
        Set<ActorRecord> owned = byOwner.get(actor.owner);
        if (owned != null && owned.remove(actor) && owned.isEmpty()) byOwner.remove(actor.owner);
    }

    /** The actors owned by any of {@code owners}, copied (the caller may kill them). */
    List<ActorRecord> ownedBy(Set<Client> owners) {
        List<ActorRecord> owned = new ArrayList<>();
        for (Client c : owners) owned.addAll(byOwner.getOrDefault(c, Set.of()));
        return owned;
    }
}
