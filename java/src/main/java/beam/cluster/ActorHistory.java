package beam.cluster;

import beam.util.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the dashboard shows of actors beyond their current state: the most recent deaths
 * (a dead actor leaves the actor table once its process is gone) and the count of deaths
 * per class. Both bounded, so the head's memory stays flat however many actors come and go.
 * Guarded by the {@link Cluster} lock.
 */
public final class ActorHistory {
    static final int MAX_DEATHS = 100;

    /** An actor as it was when it died, and when that was. */
    public record Death(ActorSnapshot actor, long endTimeMillis) {
    }

    private final ArrayDeque<Death> deaths = new ArrayDeque<>();
    /** Deaths ever, per actor class (at most {@link #MAX_CLASSES}; the rest count as "(other)"). */
    private final LinkedHashMap<String, Long> deathsByClass = new LinkedHashMap<>();
    static final int MAX_CLASSES = 1_000;
    /** The cluster's clock: when each death happened. */
    private final Clock clock;

    ActorHistory(Clock clock) {
        this.clock = clock;
    }

    /** Records the death of an actor already marked DEAD with its message. */
    void died(ActorSnapshot actor) {
        deaths.addLast(new Death(actor, clock.wallMillis()));
        if (deaths.size() > MAX_DEATHS) deaths.removeFirst();
        String key = deathsByClass.containsKey(actor.className()) || deathsByClass.size() < MAX_CLASSES
                ? actor.className() : "(other)";
        deathsByClass.merge(key, 1L, Long::sum);
    }

    /** Deaths ever, per actor class, in the order the classes first died. */
    Map<String, Long> deathsByClass() {
        return new LinkedHashMap<>(deathsByClass);
    }

    /** The most recent death of actor {@code id} still remembered, or null (a pass over at most {@link #MAX_DEATHS}). */
    ActorSnapshot death(String id) {
        for (var it = deaths.descendingIterator(); it.hasNext(); ) {
            ActorSnapshot a = it.next().actor();
            if (a.id().equals(id)) return a;
        }
        return null;
    }

    /** The most recent deaths, newest first. */
    List<Death> deaths() {
        List<Death> out = new ArrayList<>(deaths);
        Collections.reverse(out);
        return out;
    }
}
