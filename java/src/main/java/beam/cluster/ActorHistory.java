package beam.cluster;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the dashboard shows of actors beyond their current state: the most recent deaths
 * (a dead actor leaves the actor table once its process is gone) and the tail of each
 * actor's output, from the {@code log} frames its node sends up anyway. Both bounded, so
 * the head's memory stays flat however many actors come and go. Guarded by the
 * {@link Cluster} lock.
 */
public final class ActorHistory {
    static final int MAX_DEATHS = 100;
    /** Actors whose output tail is kept (the least recently written one is dropped first). */
    static final int MAX_TAILS = 512;
    static final int TAIL_BYTES = 8 * 1024;

    /** An actor as it was when it died, and when that was. */
    public record Death(ActorSnapshot actor, long endTimeMillis) {
    }

    private final ArrayDeque<Death> deaths = new ArrayDeque<>();
    private final LinkedHashMap<String, ArrayDeque<byte[]>> tails = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, ArrayDeque<byte[]>> eldest) {
            return size() > MAX_TAILS;
        }
    };
    /** Deaths ever, per actor class (at most {@link #MAX_CLASSES}; the rest count as "(other)"). */
    private final LinkedHashMap<String, Long> deathsByClass = new LinkedHashMap<>();
    static final int MAX_CLASSES = 1_000;

    /** Records the death of an actor already marked DEAD with its message. */
    void died(ActorSnapshot actor) {
        deaths.addLast(new Death(actor, System.currentTimeMillis()));
        if (deaths.size() > MAX_DEATHS) deaths.removeFirst();
        String key = deathsByClass.containsKey(actor.className()) || deathsByClass.size() < MAX_CLASSES
                ? actor.className() : "(other)";
        deathsByClass.merge(key, 1L, Long::sum);
    }

    /** Deaths ever, per actor class, in the order the classes first died. */
    Map<String, Long> deathsByClass() {
        return new LinkedHashMap<>(deathsByClass);
    }

    /** The most recent deaths, newest first. */
    List<Death> deaths() {
        List<Death> out = new ArrayList<>(deaths);
        Collections.reverse(out);
        return out;
    }

    /** Keeps the last {@link #TAIL_BYTES} of {@code log}'s text for its actor. */
    void log(String actorId, ActorOutput log) {
        byte[] text = log.text();
        if (text.length == 0) return;
        // stdout is kept as it came (this runs under the cluster lock, for every batch of output);
        // stderr lines are marked, so the tail tells the two apart
        byte[] tagged = !log.stderr() ? text
                : new String(text, StandardCharsets.UTF_8).replaceAll("(?m)^(?=.)", "[err] ").getBytes(StandardCharsets.UTF_8);
        ArrayDeque<byte[]> chunks = tails.computeIfAbsent(actorId, k -> new ArrayDeque<>());
        chunks.addLast(tagged.length > TAIL_BYTES
                ? Arrays.copyOfRange(tagged, tagged.length - TAIL_BYTES, tagged.length) : tagged);
        long total = 0;
        for (byte[] c : chunks) total += c.length;
        while (total > TAIL_BYTES && chunks.size() > 1) total -= chunks.removeFirst().length;
    }

    /** The last {@code lines} lines the actor printed (stdout, and stderr marked [err]), oldest first. */
    String tail(String actorId, int lines) {
        ArrayDeque<byte[]> chunks = tails.get(actorId);
        if (chunks == null) return null;
        StringBuilder all = new StringBuilder();
        for (byte[] c : chunks) all.append(new String(c, StandardCharsets.UTF_8));
        String[] split = all.toString().split("\n", -1);
        int end = split.length > 0 && split[split.length - 1].isEmpty() ? split.length - 1 : split.length;
        int start = Math.max(0, end - lines);
        return String.join("\n", Arrays.asList(split).subList(start, end)) + (end > start ? "\n" : "");
    }
}
