package beam.metrics;

import beam.cluster.ClusterSnapshot;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * One node's Prometheus metrics, built from its state at each scrape (nothing is counted
 * twice or kept for it): the daemon process's own, the user's {@code ray.util.metrics}, and
 * its accelerators' telemetry ({@link GpuStats}), and on the head the cluster's (resources,
 * actors, placement groups, nodes, calls). Ray's
 * names where Ray has one; the list is in docs/METRICS.md.
 */
public final class NodeMetrics {
    /** The cluster's side, on the head: one snapshot of it and its call counts. */
    public interface ClusterSource {
        ClusterSnapshot status();

        long calls();

        long failedCalls();
    }

    private static final Logger LOG = Logger.getLogger(NodeMetrics.class.getName());
    private final UserMetrics user;
    private final Supplier<String> healthProblem;
    private final ClusterSource cluster; // null on a joined node
    private final GpuStats gpus;

    public NodeMetrics(UserMetrics user, Supplier<String> healthProblem, ClusterSource cluster) {
        this(user, healthProblem, cluster, GpuStats.none());
    }

    public NodeMetrics(UserMetrics user, Supplier<String> healthProblem, ClusterSource cluster, GpuStats gpus) {
        this.user = user;
        this.healthProblem = healthProblem;
        this.cluster = cluster;
        this.gpus = gpus;
    }

    /** The text format Prometheus scrapes. */
    public byte[] scrape() throws IOException {
        List<MetricSnapshot> out = new ArrayList<>();
        ProcessStats.add(out);
        out.add(gauge("beam_node_healthy", "1 while this node's health probes answer success, else 0",
                Map.of(Labels.EMPTY, healthProblem.get() == null ? 1.0 : 0.0)));
        gpus.add(out);
        if (cluster != null) ClusterStats.add(out, cluster);
        java.util.Set<String> taken = new java.util.HashSet<>();
        for (MetricSnapshot m : out) taken.add(m.getMetadata().getPrometheusName());
        addUser(out, taken);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(bytes, new MetricSnapshots(out), EscapingScheme.UNDERSCORE_ESCAPING);
        return bytes.toByteArray();
    }

    public static String contentType() {
        return PrometheusTextFormatWriter.CONTENT_TYPE;
    }

    /** The user's families, each on its own: one that the exposition refuses is left out and logged, not the scrape. */
    private void addUser(List<MetricSnapshot> out, java.util.Set<String> taken) {
        for (UserMetrics.Aggregate a : user.aggregate()) {
            UserMetrics.Family f = a.family();
            MetricSnapshot snapshot;
            try {
                snapshot = family(a, f);
            } catch (IllegalArgumentException e) {
                LOG.warning("ray.util.metrics " + f.name() + " cannot be exported: " + e.getMessage());
                continue;
            }
            // the name the exposition checks for clashes (a counter's without _total)
            if (!taken.add(snapshot.getMetadata().getPrometheusName())) {
                LOG.fine(() -> "ray.util.metrics " + f.name() + " has the name of one of beam's own metrics: left out");
                continue;
            }
            out.add(snapshot);
        }
        out.add(CounterSnapshot.builder().name("beam_user_metric_series_dropped")
                .help("ray.util.metrics series refused because the node held " + UserMetrics.MAX_SERIES + " already")
                .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().value(user.droppedSeries()).build()).build());
    }

    private static MetricSnapshot family(UserMetrics.Aggregate a, UserMetrics.Family f) {
        {
            switch (f.kind()) {
                case "counter" -> {
                    var b = CounterSnapshot.builder().name(f.name()).help(f.help());
                    a.series().forEach((k, s) -> b.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                            .labels(labels(k.tags())).value(s.value).build()));
                    return b.build();
                }
                case "gauge" -> {
                    var b = GaugeSnapshot.builder().name(f.name()).help(f.help());
                    a.series().forEach((k, s) -> b.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                            .labels(labels(k.tags())).value(s.value).build()));
                    return b.build();
                }
                default -> {
                    var b = HistogramSnapshot.builder().name(f.name()).help(f.help());
                    double[] bounds = new double[f.boundaries().length + 1];
                    System.arraycopy(f.boundaries(), 0, bounds, 0, f.boundaries().length);
                    bounds[bounds.length - 1] = Double.POSITIVE_INFINITY;
                    a.series().forEach((k, s) -> b.dataPoint(HistogramSnapshot.HistogramDataPointSnapshot.builder()
                            .labels(labels(k.tags())).sum(s.sum)
                            .classicHistogramBuckets(ClassicHistogramBuckets.of(bounds, s.buckets)).build()));
                    return b.build();
                }
            }
        }
    }

    static Labels labels(Map<String, String> tags) {
        return tags.isEmpty() ? Labels.EMPTY : Labels.of(new ArrayList<>(tags.keySet()), new ArrayList<>(tags.values()));
    }

    static Labels labels(String... namesAndValues) {
        TreeMap<String, String> m = new TreeMap<>();
        for (int i = 0; i + 1 < namesAndValues.length; i += 2) m.put(namesAndValues[i], namesAndValues[i + 1]);
        return labels(m);
    }

    static GaugeSnapshot gauge(String name, String help, Map<Labels, Double> points) {
        var b = GaugeSnapshot.builder().name(name).help(help);
        points.forEach((l, v) -> b.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(l).value(v).build()));
        return b.build();
    }

    static Map<Labels, Double> points() {
        return new LinkedHashMap<>();
    }

    static String text(JsonNode n) {
        return n == null || n.isNull() ? "" : n.asText();
    }
}
