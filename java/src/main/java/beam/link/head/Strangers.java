package beam.link.head;

import beam.connection.Connection;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * The connections on the head's TCP port that have not proven the cluster token yet, bounded
 * per source address and in total. When a new one would pass a bound, the oldest of its
 * source (or the oldest of all) is cut off: a real node answers its challenge within one
 * round trip, so it is always among the newest, while a peer that holds connections open
 * or trickles bytes ages out first. Nodes that have joined and local clients are not
 * counted here, so no number of strangers can keep them out; and the total stays well under
 * the listener's connection limit, so strangers can never take the permits a joining node
 * needs either.
 */
final class Strangers {
    /** Handshakes in progress from one address at once: a node's join takes one, a NAT in front of many nodes a few. */
    static final int MAX_PER_SOURCE = 64;
    /** Handshakes in progress at once, at most: a fleet joining together fits, and so do its retries. */
    static final int MAX_TOTAL = 512;

    private final int maxTotal;
    private final int maxPerSource;
    /** Oldest first. Guarded by this. */
    private final LinkedHashSet<Connection> all = new LinkedHashSet<>();
    private final Map<String, ArrayDeque<Connection>> bySource = new HashMap<>();
    private final Map<Connection, String> sourceOf = new HashMap<>();

    /** The bounds for a listener that takes {@code maxConnections} at once: strangers get a quarter at most. */
    static Strangers forListener(int maxConnections) {
        return new Strangers(Math.max(1, Math.min(MAX_TOTAL, maxConnections / 4)), MAX_PER_SOURCE);
    }

    Strangers(int maxTotal, int maxPerSource) {
        this.maxTotal = maxTotal;
        this.maxPerSource = maxPerSource;
    }

    /** Counts {@code connection} from {@code source}; cuts off the oldest strangers that put it over a bound. */
    void admit(Connection connection, String source) {
        List<Connection> evicted = new ArrayList<>();
        synchronized (this) {
            all.add(connection);
            sourceOf.put(connection, source);
            ArrayDeque<Connection> same = bySource.computeIfAbsent(source, s -> new ArrayDeque<>());
            same.addLast(connection);
            while (same.size() > maxPerSource) evicted.add(forget(same.peekFirst()));
            while (all.size() > maxTotal) evicted.add(forget(all.iterator().next()));
        }
        for (Connection c : evicted) c.close(); // outside the lock: close runs its hooks
    }

    /** The handshake of {@code connection} is over (joined, refused or cut off). */
    synchronized void leave(Connection connection) {
        if (sourceOf.containsKey(connection)) forget(connection);
    }

    synchronized int size() {
        return all.size();
    }

    private Connection forget(Connection connection) {
        all.remove(connection);
        String source = sourceOf.remove(connection);
        ArrayDeque<Connection> same = bySource.get(source);
        same.remove(connection);
        if (same.isEmpty()) bySource.remove(source);
        return connection;
    }

    /** The address part of a peer's "host:port" (IPv6 too: the port is after the last colon). */
    static String sourceOf(String peer) {
        int colon = peer.lastIndexOf(':');
        return colon > 0 ? peer.substring(0, colon) : peer;
    }
}
