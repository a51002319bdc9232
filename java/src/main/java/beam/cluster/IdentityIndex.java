package beam.cluster;

import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * One index of the cluster's tables: the values (actors, groups) filed under each key (a
 * client, a node) by identity, in the order they were filed. A key whose last value leaves
 * leaves too, so the index holds only what the tables hold. Guarded by the cluster lock.
 */
final class IdentityIndex<K, V> {
    private final Map<K, Set<V>> sets = new IdentityHashMap<>();

    void add(K key, V value) {
        sets.computeIfAbsent(key, k -> new LinkedHashSet<>()).add(value);
    }

    void remove(K key, V value) {
        Set<V> set = sets.get(key);
        if (set != null && set.remove(value) && set.isEmpty()) sets.remove(key);
    }

    /** The values under {@code key}, as they are (copy it before changing the tables). */
    Set<V> get(K key) {
        return sets.getOrDefault(key, Set.of());
    }

    /** Removes {@code key} and returns its values. */
    Set<V> take(K key) {
        Set<V> set = sets.remove(key);
        return set == null ? Set.of() : set;
    }

    /** How many keys have a value (tests: nothing is left behind). */
    int keys() {
        return sets.size();
    }
}
