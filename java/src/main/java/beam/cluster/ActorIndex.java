package beam.cluster;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The actors in the table by owner, by node, by caller and by placement group
 * ({@link PlacementGroup#actors}), so that a client leaving, a node lost or a group removed
 * costs its own actors, not a pass over every actor: such a pass would run under the
 * cluster lock once per killed actor (each killed actor's worker connection is a client
 * leaving), so its cost would grow with the square of the table. Guarded by the cluster lock.
 *
 * <p>Callers: an actor's {@link ActorRecord#callers} are the clients that sent it a call
 * while it was in the table (a superset of those with a call in flight or queued now), and
 * {@link #calledBy} is the reverse. The call path pays one field compare when the caller is
 * the actor's last one, else one identity-map lookup; a result pays nothing. Entries leave
 * with the client ({@link #forgetCallers}) or with the actor ({@link #remove}), so a driver
 * that calls many short-lived actors keeps no entry for the retired ones.
 */
final class ActorIndex {
    private final IdentityIndex<Client, ActorRecord> byOwner = new IdentityIndex<>();
    private final IdentityIndex<Node, ActorRecord> byNode = new IdentityIndex<>();
    private final IdentityIndex<Client, ActorRecord> byCaller = new IdentityIndex<>();
    /** Every actor in the table by id: a view's point query ({@link Cluster#actor}) costs one lookup. */
    private final Map<String, ActorRecord> byId = new HashMap<>();

    /** A new actor in the table. */
    void add(ActorRecord actor) {
        if (actor.group != null) actor.group.actors.add(actor);
        byOwner.add(actor.owner, actor);
        byId.put(actor.id, actor);
    }

    /** {@code actor} was given resources on {@code actor.node}: it dies with that node. */
    void placed(ActorRecord actor) {
        byNode.add(actor.node, actor);
    }

    /** {@code caller} sends {@code actor} a call (the hot path: see the class comment). */
    void called(ActorRecord actor, Client caller) {
        if (caller == actor.lastCaller) return;
        actor.lastCaller = caller;
        if (actor.callers == null) actor.callers = Collections.newSetFromMap(new IdentityHashMap<>(2)); // most have one
        if (actor.callers.add(caller)) byCaller.add(caller, actor);
    }

    /** A retired actor leaves every index. */
    void remove(ActorRecord actor) {
        if (actor.group != null) actor.group.actors.remove(actor);
        byOwner.remove(actor.owner, actor);
        byId.remove(actor.id, actor);
        if (actor.node != null) byNode.remove(actor.node, actor);
        if (actor.callers != null) {
            for (Client c : actor.callers) byCaller.remove(c, actor);
            actor.callers = null;
        }
        actor.lastCaller = null;
    }

    /** The actors owned by any of {@code owners}, copied (the caller may kill them). */
    List<ActorRecord> ownedBy(Set<Client> owners) {
        List<ActorRecord> owned = new ArrayList<>();
        for (Client c : owners) owned.addAll(byOwner.get(c));
        return owned;
    }

    /** The actors placed on {@code node} and still in the table, copied (the caller retires them). */
    List<ActorRecord> on(Node node) {
        return new ArrayList<>(byNode.get(node));
    }

    /**
     * The callers {@code gone} leave the index; the actors they called are returned (each
     * once) so that their calls there can be dropped.
     */
    Set<ActorRecord> forgetCallers(Set<Client> gone) {
        Set<ActorRecord> called = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Client caller : gone) {
            for (ActorRecord a : byCaller.take(caller)) {
                a.callers.remove(caller);
                if (a.lastCaller == caller) a.lastCaller = null;
                called.add(a);
            }
        }
        return called;
    }

    /** The actors {@code caller} is filed under as having called (tests). */
    Set<ActorRecord> calledBy(Client caller) {
        return Set.copyOf(byCaller.get(caller));
    }

    /** The actor in the table with this id, or null. */
    ActorRecord byId(String id) {
        return byId.get(id);
    }

    /** How many ids, owners, nodes and callers have an entry (tests: nothing is left behind). */
    int keys() {
        return byId.size() + byOwner.keys() + byNode.keys() + byCaller.keys();
    }
}
