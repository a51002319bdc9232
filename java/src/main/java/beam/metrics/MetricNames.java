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

    /** The exported name of user metric {@code raw}, or null when it cannot be one. */
    public static String sanitize(String raw) {
        if (raw == null || raw.isBlank() || raw.length() > MAX_NAME) return null;
        String name = PrometheusNaming.sanitizeMetricName("ray_" + raw.replaceAll("[^A-Za-z0-9_]", "_"));
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
