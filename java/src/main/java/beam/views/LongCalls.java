package beam.views;

import beam.cluster.CallSnapshot;
import beam.cluster.ClusterSnapshot;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Calls running longer than the cluster's threshold (ray start --long-call-seconds, default
 * 60 s): what ray status, the dashboard and ray doctor name, each with where it runs and the
 * command that shows where it is stuck.
 */
public final class LongCalls {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private LongCalls() {
    }

    /** {@code long_calls} rows: name, label, actor, node, pid, age and the hint. */
    public static ArrayNode rows(ClusterSnapshot snapshot, long nowMillis) {
        ArrayNode rows = F.arrayNode();
        for (CallSnapshot c : snapshot.longCalls(nowMillis)) {
            ObjectNode r = rows.addObject();
            r.put("task_id", c.taskId());
            r.put("name", c.name());
            r.put("beam_label", c.label());
            r.put("actor_id", c.actorId());
            r.put("node_id", c.nodeId());
            r.put("node_ip", c.nodeIp());
            r.put("worker_pid", c.pid());
            r.put("start_time_ms", c.startMillis());
            r.put("age_s", c.ageMillis(nowMillis) / 1000);
            r.put("message", describe(c, nowMillis));
        }
        return rows;
    }

    /** One line: "RayWorkerWrapper.execute_method(init_device) has run 75 s on actor ... : run ray stack ...". */
    public static String describe(CallSnapshot c, long nowMillis) {
        return c.name() + (c.label() != null ? "(" + c.label() + ")" : "") + " has run " + c.ageMillis(nowMillis) / 1000
                + " s on actor " + c.actorId() + " (node " + c.nodeIp() + ", pid " + c.pid() + "); to see where it is, run: "
                + hint(c);
    }

    public static String hint(CallSnapshot c) {
        return "ray stack --actor-id " + c.actorId();
    }
}
