package beam.views;

import beam.cluster.CallSnapshot;
import beam.cluster.ClusterSnapshot;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Set;

/**
 * Calls running longer than the cluster's threshold (ray start --long-call-seconds, default
 * 60 s): what ray status, the dashboard and ray doctor name, each with where it runs and the
 * command that shows where it is stuck. A call meant to run for the life of its actor is
 * not one of them: vLLM's engine loop ({@code RayWorkerProc.run}, started on every worker
 * once it is set up) would otherwise make every healthy vLLM cluster look stuck after a
 * minute; those are only counted.
 */
public final class LongCalls {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    /** Calls that run for the life of their actor by design ({@code Class.method}). */
    static final Set<String> ENGINE_LOOPS = Set.of("RayWorkerProc.run");

    private LongCalls() {
    }

    /** The calls past the threshold that may be stuck: all of them but the engine loops, oldest first. */
    public static List<CallSnapshot> suspects(ClusterSnapshot snapshot, long nowMillis) {
        return snapshot.longCalls(nowMillis).stream().filter(c -> !ENGINE_LOOPS.contains(c.name())).toList();
    }

    /** How many engine loops run past the threshold, as they should. */
    public static int engineLoops(ClusterSnapshot snapshot, long nowMillis) {
        return (int) snapshot.longCalls(nowMillis).stream().filter(c -> ENGINE_LOOPS.contains(c.name())).count();
    }

    /** {@code long_calls} rows: name, label, actor, node, pid, age and the hint. */
    public static ArrayNode rows(ClusterSnapshot snapshot, long nowMillis) {
        ArrayNode rows = F.arrayNode();
        for (CallSnapshot c : suspects(snapshot, nowMillis)) {
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
