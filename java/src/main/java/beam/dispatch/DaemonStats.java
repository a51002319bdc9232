package beam.dispatch;

import beam.cluster.Cluster;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;

/** A snapshot of the daemon's own resource use, to show that it stays flat under load. */
final class DaemonStats {
    private DaemonStats() {
    }

    static ObjectNode snapshot(Cluster cluster) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        o.put("heap_used_bytes", heap.getUsed());
        o.put("heap_committed_bytes", heap.getCommitted());
        String[] fds = new File("/proc/self/fd").list();
        o.put("open_fds", fds == null ? -1 : fds.length);
        o.put("threads", ManagementFactory.getThreadMXBean().getThreadCount());
        o.put("actors", cluster.actorCount());
        o.put("dead_actor_tombstones", cluster.tombstoneCount());
        o.put("placement_groups", cluster.groupCount());
        return o;
    }
}
