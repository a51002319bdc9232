package beam.metrics;

import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** The daemon process's own resource use: resident memory, heap, threads, open files. */
final class ProcessStats {
    private ProcessStats() {
    }

    static void add(List<MetricSnapshot> out) {
        double rssMb = rssKib() / 1024.0;
        if (rssMb >= 0) {
            out.add(NodeMetrics.gauge("ray_component_rss_mb", "Resident memory of a Ray component, in MB",
                    Map.of(NodeMetrics.labels("Component", "beamd"), rssMb)));
        }
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        out.add(NodeMetrics.gauge("beam_daemon_heap_bytes", "The daemon's Java heap, used and committed",
                Map.of(NodeMetrics.labels("area", "used"), (double) heap.getUsed(),
                        NodeMetrics.labels("area", "committed"), (double) heap.getCommitted())));
        out.add(NodeMetrics.gauge("beam_daemon_threads", "Live threads of the daemon (platform threads)",
                Map.of(Labels.EMPTY, (double) ManagementFactory.getThreadMXBean().getThreadCount())));
        String[] fds = new File("/proc/self/fd").list();
        if (fds != null) {
            out.add(NodeMetrics.gauge("beam_daemon_open_fds", "File descriptors the daemon holds open",
                    Map.of(Labels.EMPTY, (double) fds.length)));
        }
    }

    /** VmRSS of this process in KiB, or -1 without /proc. */
    private static long rssKib() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: no RSS metric
        }
        return -1;
    }
}
