package beam.metrics;

import beam.util.DeviceTelemetry;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * This node's accelerator telemetry under the names, units and tags of Ray 2.58's reporter
 * agent, which each node exports for its own devices: {@code ray_node_gpus_available} (1 per
 * device), {@code ray_node_gpus_utilization} (percent), {@code ray_node_gram_used} and
 * {@code ray_node_gram_available} (MiB: Ray declares bytes but reports the MiB its GPU
 * providers read), tagged {@code ip}, {@code IsHeadNode}, {@code RayNodeType}, {@code GpuIndex},
 * {@code GpuDeviceName} and {@code GpuUuid} where known. Plus beam's
 * {@code beam_accelerator_tool_hung} and {@code beam_accelerator_tool_failing} (1 or 0, by
 * tool), so an alert can fire on a wedged driver.
 *
 * @param ip        this node's IP
 * @param head      whether this node is the head
 * @param telemetry its latest sample, {@link DeviceTelemetry#NONE} where nothing is sampled
 */
public record GpuStats(String ip, boolean head, Supplier<DeviceTelemetry> telemetry) {
    /** A node that samples nothing (tests, and daemons built without telemetry). */
    public static GpuStats none() {
        return new GpuStats("", false, () -> DeviceTelemetry.NONE);
    }

    void add(List<MetricSnapshot> out) {
        DeviceTelemetry t = telemetry.get();
        if (t.tool() == null) return;
        Map<Labels, Double> available = NodeMetrics.points();
        Map<Labels, Double> utilization = NodeMetrics.points();
        Map<Labels, Double> used = NodeMetrics.points();
        Map<Labels, Double> free = NodeMetrics.points();
        for (DeviceTelemetry.Device d : t.devices()) {
            Labels l = deviceLabels(d);
            available.put(l, 1.0);
            utilization.put(l, d.utilizationPercent() == null ? 0.0 : d.utilizationPercent());
            used.put(l, (double) d.memoryUsedMiB());
            free.put(l, (double) (d.memoryTotalMiB() - d.memoryUsedMiB()));
        }
        out.add(NodeMetrics.gauge("ray_node_gpus_available", "Total GPUs available on a ray node (Ray's metric)", available));
        out.add(NodeMetrics.gauge("ray_node_gpus_utilization", "Total GPUs usage on a ray node, in percent (Ray's metric)",
                utilization));
        out.add(NodeMetrics.gauge("ray_node_gram_used", "Total GPU RAM usage on a ray node, in MiB (Ray's metric)", used));
        out.add(NodeMetrics.gauge("ray_node_gram_available", "Total GPU RAM available on a ray node, in MiB (Ray's metric)",
                free));
        Labels tool = NodeMetrics.labels("ip", ip, "tool", t.tool());
        out.add(NodeMetrics.gauge("beam_accelerator_tool_hung",
                "1 while this node's accelerator tool did not answer its last sample in time (a driver or GPU fault)",
                Map.of(tool, t.hung() ? 1.0 : 0.0)));
        out.add(NodeMetrics.gauge("beam_accelerator_tool_failing",
                "1 while this node's accelerator tool's last sample failed, hung or could not be read",
                Map.of(tool, t.problem() != null ? 1.0 : 0.0)));
    }

    private Labels deviceLabels(DeviceTelemetry.Device d) {
        TreeMap<String, String> tags = new TreeMap<>();
        tags.put("ip", ip);
        tags.put("IsHeadNode", head ? "true" : "false");
        tags.put("RayNodeType", head ? "head" : "worker");
        tags.put("GpuIndex", d.index());
        if (d.name() != null) tags.put("GpuDeviceName", d.name());
        if (d.uuid() != null) tags.put("GpuUuid", d.uuid());
        return NodeMetrics.labels(tags);
    }
}
