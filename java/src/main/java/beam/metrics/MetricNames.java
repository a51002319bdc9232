package beam.metrics;

import io.prometheus.metrics.model.snapshots.PrometheusNaming;

/**
 * Names of user metrics as Prometheus shows them: Ray's (its metrics agent exports a
 * {@code ray.util.metrics} metric {@code foo} as {@code ray_foo}), with every character
 * outside {@code [A-Za-z0-9_]} made {@code _}, as Ray's OpenTelemetry exporter does (vLLM's
 * {@code vllm:num_requests_running} becomes {@code ray_vllm_num_requests_running}).
 */
public final class MetricNames {
    static final int MAX_NAME = 200;

    private MetricNames() {
    }

    /**
     * The exported family name of user metric {@code raw}, or null when it cannot be one. A
     * counter's drops one trailing {@code _total}, which the exposition adds back (as Ray's
     * exporter, prometheus_client, does: counters {@code x} and {@code x_total} are both
     * {@code ray_x_total}). Any other name is kept whole, {@code _info}, {@code _total} and
     * {@code _bucket} endings too (PrometheusNaming.sanitizeMetricName would strip them):
     * vLLM's gauge {@code vllm:cache_config_info} is {@code ray_vllm_cache_config_info}, as on Ray.
     */
    public static String sanitize(String raw, boolean counter) {
        if (raw == null || raw.isBlank() || raw.length() > MAX_NAME) return null;
        String name = "ray_" + raw.replaceAll("[^A-Za-z0-9_]", "_");
        if (counter && name.endsWith("_total")) name = name.substring(0, name.length() - "_total".length());
        return PrometheusNaming.isValidLegacyMetricName(name) ? name : null;
    }

    /** A tag key as a label name, or null when it cannot be one (Prometheus reserves le, quantile and __*). */
    static String sanitizeLabel(String raw) {
        if (raw == null || raw.isBlank() || raw.length() > MAX_NAME || raw.startsWith("__")) return null;
        String name = PrometheusNaming.sanitizeLabelName(raw.replaceAll("[^A-Za-z0-9_]", "_"));
        if (name.equals("le") || name.equals("quantile") || name.startsWith("__")) return null;
        return PrometheusNaming.isValidLegacyLabelName(name) ? name : null;
    }
}
