package beam.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.logging.Logger;

/**
 * The {@code ray.util.metrics} values of this node's processes (docs/PROTOCOL.md,
 * "metrics"): each process sends its cumulative values now and then, fire-and-forget, and
 * this keeps the latest per process and series; a scrape sums counters and histograms over
 * processes and takes the newest gauge. When a process goes, its counters and histograms
 * stay (a counter must not go down) and its gauges leave. Bounded by {@link #MAX_SERIES}.
 */
public final class UserMetrics {
    public static final int MAX_SERIES = 10_000;
    public static final int MAX_PER_FRAME = 2_000;
    /**
     * A series' tags: at most this many, their keys and values at most {@link #MAX_TAG_CHARS}
     * characters together (a node's worst case about what 16 tags of 256 characters once
     * allowed). Ray sets no limit; vLLM's info gauge {@code vllm:cache_config_info} (0.34)
     * tags every CacheConfig field: 41 tags, about 1,100 characters.
     */
    static final int MAX_TAGS = 64;
    static final int MAX_TAG_CHARS = 8192;
    static final int MAX_BOUNDARIES = 64;
    static final int MAX_TEXT = 256;

    /** A family's fixed shape: the first report of a name decides it. */
    record Family(String name, String kind, String help, double[] boundaries) {
    }

    /** One series: its name and tags (sorted), and what one process last said of it. */
    record Key(String name, TreeMap<String, String> tags) {
    }

    static final class Sample {
        double value; // counter or gauge
        long[] buckets; // histogram: per bucket, the last one +Inf
        double sum;
        long stamp;
    }

    private final Map<String, Family> families = new LinkedHashMap<>();
    private final Map<Object, Map<Key, Sample>> bySource = new HashMap<>();
    private final Map<Key, Sample> retired = new HashMap<>();
    private int series;
    private long dropped;
    private long clock;
    private long lastWarningNanos = System.nanoTime() - WARN_EVERY_NANOS;
    /** A refused report is logged (beamd.log) at most this often: a process resends every 2 s. */
    static final long WARN_EVERY_NANOS = 60_000_000_000L;
    private static final Logger LOG = Logger.getLogger(UserMetrics.class.getName());

    /**
     * Takes one process's report ({@code metrics}: the frame's list). Returns null when all of
     * it was taken, else what was wrong with the parts left out (the rest is still taken).
     */
    public synchronized String record(Object source, JsonNode metrics) {
        if (metrics == null || !metrics.isArray()) return "field 'metrics' (list) is required";
        if (metrics.size() > MAX_PER_FRAME) return "at most " + MAX_PER_FRAME + " series per message, got " + metrics.size();
        Map<Key, Sample> mine = bySource.computeIfAbsent(source, s -> new HashMap<>());
        String problem = null;
        for (JsonNode m : metrics) {
            String why = take(mine, m);
            if (why != null && problem == null) problem = why;
        }
        if (problem != null && System.nanoTime() - lastWarningNanos > WARN_EVERY_NANOS) {
            lastWarningNanos = System.nanoTime();
            LOG.warning("ray.util.metrics: part of a report was refused: " + problem + " (logged at most once a minute)");
        }
        return problem;
    }

    private String take(Map<Key, Sample> mine, JsonNode m) {
        String kind = m.path("kind").asText("");
        String name = MetricNames.sanitize(m.path("name").asText(""), kind.equals("counter"));
        if (name == null) return "a metric needs a name of letters, digits and _ (got " + clip(m.path("name").asText("")) + ")";
        if (!kind.equals("counter") && !kind.equals("gauge") && !kind.equals("histogram")) {
            return "metric " + name + ": kind must be counter, gauge or histogram";
        }
        TreeMap<String, String> tags = new TreeMap<>();
        JsonNode t = m.path("tags");
        if (t.size() > MAX_TAGS) return "metric " + name + ": at most " + MAX_TAGS + " tags";
        int chars = 0;
        for (var it = t.fields(); it.hasNext(); ) {
            var e = it.next();
            String k = MetricNames.sanitizeLabel(e.getKey());
            if (k == null || !e.getValue().isTextual()) {
                return "metric " + name + ": tag " + clip(e.getKey()) + " must be a name with a string value";
            }
            chars += k.length() + e.getValue().asText().length();
            if (chars > MAX_TAG_CHARS) {
                return "metric " + name + ": its tags' keys and values hold more than " + MAX_TAG_CHARS + " characters";
            }
            tags.put(k, e.getValue().asText());
        }
        double[] bounds = null;
        if (kind.equals("histogram")) {
            JsonNode b = m.path("boundaries");
            if (!b.isArray() || b.isEmpty() || b.size() > MAX_BOUNDARIES) {
                return "histogram " + name + ": 1 to " + MAX_BOUNDARIES + " boundaries are required";
            }
            bounds = new double[b.size()];
            for (int i = 0; i < bounds.length; i++) {
                bounds[i] = b.get(i).asDouble(Double.NaN);
                // what the exposition accepts: finite, strictly ascending (else every scrape would fail)
                if (!b.get(i).isNumber() || !Double.isFinite(bounds[i]) || (i > 0 && bounds[i] <= bounds[i - 1])) {
                    return "histogram " + name + ": boundaries must be finite numbers in ascending order";
                }
            }
            JsonNode counts = m.path("buckets");
            if (!counts.isArray() || counts.size() != bounds.length + 1) {
                return "histogram " + name + ": 'buckets' must hold one count per boundary plus one (+Inf)";
            }
        } else {
            JsonNode v = m.path("value");
            if (!v.isNumber() || (kind.equals("counter") && !(v.asDouble() >= 0 && Double.isFinite(v.asDouble())))) {
                return "metric " + name + ": 'value' must be a number" + (kind.equals("counter") ? " >= 0" : "");
            }
        }
        Family family = families.get(name);
        if (family == null) {
            if (series >= MAX_SERIES) return dropSeries(name);
            family = new Family(name, kind, clip(m.path("description").asText("")), bounds);
            families.put(name, family);
        } else if (!family.kind().equals(kind) || !java.util.Arrays.equals(family.boundaries(), bounds)) {
            return "metric " + name + " was first reported as a " + family.kind() + (family.boundaries() != null
                    ? " with other boundaries" : "") + "; a name keeps its kind and boundaries";
        }
        Key key = new Key(name, tags);
        Sample s = mine.get(key);
        if (s == null) {
            if (series >= MAX_SERIES) return dropSeries(name);
            s = new Sample();
            mine.put(key, s);
            series++;
        }
        s.stamp = ++clock;
        if (bounds == null) {
            s.value = m.path("value").asDouble();
        } else {
            JsonNode b = m.path("buckets");
            s.buckets = new long[b.size()];
            for (int i = 0; i < s.buckets.length; i++) s.buckets[i] = Math.max(0, b.get(i).asLong());
            s.sum = m.path("sum").isNumber() ? m.path("sum").asDouble() : 0;
        }
        return null;
    }

    private String dropSeries(String name) {
        dropped++;
        return "metric " + name + ": this node already holds " + MAX_SERIES + " series; new ones are dropped";
    }

    /** A process is gone: its counters and histograms stay (summed into the retired ones), its gauges leave. */
    public synchronized void sourceGone(Object source) {
        Map<Key, Sample> mine = bySource.remove(source);
        if (mine == null) return;
        for (var e : mine.entrySet()) {
            Family f = families.get(e.getKey().name());
            series--;
            if (f.kind().equals("gauge")) continue;
            Sample r = retired.get(e.getKey());
            if (r == null) {
                retired.put(e.getKey(), e.getValue());
                series++;
            } else {
                add(r, e.getValue());
            }
        }
    }

    private static void add(Sample into, Sample s) {
        into.value += s.value;
        into.sum += s.sum;
        if (s.buckets != null) {
            if (into.buckets == null) into.buckets = new long[s.buckets.length];
            for (int i = 0; i < s.buckets.length; i++) into.buckets[i] += s.buckets[i];
        }
        into.stamp = Math.max(into.stamp, s.stamp);
    }

    /** One family and its series as a scrape shows them. */
    record Aggregate(Family family, Map<Key, Sample> series) {
    }

    synchronized List<Aggregate> aggregate() {
        Map<String, Map<Key, Sample>> byName = new LinkedHashMap<>();
        List<Map<Key, Sample>> all = new ArrayList<>(bySource.values());
        all.add(retired);
        for (Map<Key, Sample> source : all) {
            for (var e : source.entrySet()) {
                Family f = families.get(e.getKey().name());
                Map<Key, Sample> out = byName.computeIfAbsent(f.name(), n -> new LinkedHashMap<>());
                Sample have = out.get(e.getKey());
                if (have == null) {
                    Sample copy = new Sample();
                    add(copy, e.getValue());
                    out.put(e.getKey(), copy);
                } else if (f.kind().equals("gauge")) {
                    if (e.getValue().stamp > have.stamp) {
                        have.value = e.getValue().value;
                        have.stamp = e.getValue().stamp;
                    }
                } else {
                    add(have, e.getValue());
                }
            }
        }
        List<Aggregate> out = new ArrayList<>();
        byName.forEach((name, s) -> out.add(new Aggregate(families.get(name), s)));
        return out;
    }

    synchronized long droppedSeries() {
        return dropped;
    }

    private static String clip(String s) {
        return s.length() > MAX_TEXT ? s.substring(0, MAX_TEXT) : s;
    }
}
