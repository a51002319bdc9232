package beam.cluster;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Who holds a handle to each counted actor, so that an actor whose last handle is gone is
 * ended as Ray ends it. Counted: actors with neither a name nor {@code lifetime="detached"}.
 * Guarded by the cluster lock.
 *
 * <p>Each Python process counts its own handles per actor and tells its daemon only when it
 * first holds one ({@code borrow}) and when it holds none any more ({@code release}); the
 * creator holds the actor from {@code create_actor}. A handle pickled to cross processes is
 * {@code lent} first: the count of lent handles keeps the actor alive until the receiver's
 * {@code borrow} (which says it was lent) takes one back, so a sender that drops its handle
 * right after sending cannot end the actor while the handle is on its way. A client leaving
 * releases everything it held. An actor is unheld when it has no holder and nothing lent.
 */
final class ActorHolders {
    /** Holders and lent handles of one counted actor. */
    private static final class Holding {
        final Set<Client> holders = Collections.newSetFromMap(new IdentityHashMap<>(2));
        int lent;

        boolean empty() {
            return holders.isEmpty() && lent <= 0;
        }
    }

    private final Map<ActorRecord, Holding> held = new IdentityHashMap<>();
    private final IdentityIndex<Client, ActorRecord> byHolder = new IdentityIndex<>();

    static boolean counted(ActorRecord actor) {
        return actor.name == null && !actor.options.detached();
    }

    /** A new actor: its creator holds it. */
    void created(ActorRecord actor, Client creator) {
        if (!counted(actor)) return;
        Holding h = new Holding();
        held.put(actor, h);
        if (h.holders.add(creator)) byHolder.add(creator, actor);
    }

    /** A pickled handle of {@code actor} is on its way to another process. */
    void lent(ActorRecord actor) {
        Holding h = held.get(actor);
        if (h != null) h.lent++;
    }

    /** {@code client} holds {@code actor}; {@code wasLent}: from a handle lent to it. */
    void borrowed(ActorRecord actor, Client client, boolean wasLent) {
        Holding h = held.get(actor);
        if (h == null) return;
        if (wasLent) h.lent--;
        if (h.holders.add(client)) byHolder.add(client, actor);
    }

    /** {@code client} holds no handle of {@code actor} any more; true when no one holds it now. */
    boolean released(ActorRecord actor, Client client) {
        Holding h = held.get(actor);
        if (h == null) return false;
        if (h.holders.remove(client)) byHolder.remove(client, actor);
        return h.empty();
    }

    /** The clients {@code gone} release all they held; returns the actors no one holds now. */
    List<ActorRecord> clientsGone(Set<Client> gone) {
        List<ActorRecord> unheld = new ArrayList<>();
        for (Client c : gone) {
            for (ActorRecord a : byHolder.take(c)) {
                Holding h = held.get(a);
                if (h != null && h.holders.remove(c) && h.empty()) unheld.add(a);
            }
        }
        return unheld;
    }

    /** A retired actor is counted no more. */
    void remove(ActorRecord actor) {
        Holding h = held.remove(actor);
        if (h != null) for (Client c : h.holders) byHolder.remove(c, actor);
    }

    /** How many actors and holders have an entry (tests: nothing is left behind). */
    int size() {
        return held.size() + byHolder.keys();
    }
}
