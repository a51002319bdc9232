package beam.http;

import beam.cluster.ClusterSnapshot;
import beam.views.ClusterLogs;
import beam.views.ClusterViews;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import beam.util.Ids;

/**
 * The head's JSON state API under the dashboard, in the response shapes of Ray's dashboard
 * ({@code {"result": true, "msg": "", "data": {...}}}): the list endpoints of
 * {@code ray list nodes|actors|placement-groups}, {@code /api/cluster_status} as the Ray
 * dashboard's overview reads it, an actor's log tail, and {@code /api/beam/dashboard}, the
 * one view the dashboard page renders. All read one cached status view ({@link HeadView}).
 */
final class StateApi {
    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 10_000;
    static final int MAX_LOG_LINES = 1_000;
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private StateApi() {
    }

    static List<Route> routes(HeadView head) {
        return List.of(
                list("/api/v0/nodes", head, StateRows::nodes, Set.of("node_id", "node_ip", "is_head_node", "state", "node_name")),
                list("/api/v0/actors", head, StateRows::actors, Set.of("actor_id", "class_name", "state", "job_id", "name",
                        "node_id", "pid", "ray_namespace", "placement_group_id")),
                list("/api/v0/tasks", head, StateRows::tasks, Set.of("task_id", "name", "state", "type", "actor_id",
                        "node_id", "worker_pid", "job_id", "error_type", "beam_label")),
                list("/api/v0/placement_groups", head, StateRows::placementGroups,
                        Set.of("placement_group_id", "name", "creator_job_id", "state")),
                new Route("/api/cluster_status", false, q -> Route.Reply.json(reply("Got cluster status.",
                        ClusterStatusView.of(head.status())))),
                new Route("/api/v0/logs/file", false, q -> log(head, q)),
                new Route("/api/beam/stack", false, q -> actorStack(head, q)),
                new Route("/api/version", false, q -> {
                    ObjectNode v = F.objectNode();
                    v.put("version", "beam 0.1.0");
                    v.put("ray_version", "2.58.0");
                    v.put("ray_commit", "beam");
                    return Route.Reply.json(v);
                }),
                new Route("/api/beam/dashboard", false, q -> {
                    ObjectNode view = ClusterViews.status(head.status());
                    view.put("time_ms", System.currentTimeMillis());
                    return Route.Reply.json(view);
                }));
    }

    private static Route list(String path, HeadView head, Function<ClusterSnapshot, ArrayNode> rows, Set<String> filterable) {
        return new Route(path, false, q -> {
            int limit = Query.integer(q, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT);
            ArrayNode all = rows.apply(head.status());
            String key = Query.text(q, "filter_keys", null);
            ArrayNode kept = all;
            if (key != null) {
                if (!filterable.contains(key)) {
                    throw new Route.HttpError(400, "The given filter column " + HttpFace.clip(key) + " is not supported. "
                            + "Supported filter columns: " + new java.util.TreeSet<>(filterable));
                }
                String pred = Query.text(q, "filter_predicates", "=");
                if (!pred.equals("=") && !pred.equals("!=")) {
                    throw new Route.HttpError(400, "Unsupported filter predicate " + HttpFace.clip(pred)
                            + " is given. Available predicates: =, !=.");
                }
                String value = Query.text(q, "filter_values", "");
                kept = F.arrayNode();
                for (JsonNode row : all) {
                    if (row.path(key).asText().equalsIgnoreCase(value) == pred.equals("=")) kept.add(row);
                }
            }
            ArrayNode page = F.arrayNode();
            for (int i = 0; i < Math.min(limit, kept.size()); i++) page.add(kept.get(i));
            ObjectNode result = F.objectNode();
            result.put("total", all.size());
            result.put("num_after_truncation", page.size());
            result.put("num_filtered", kept.size());
            result.set("result", page);
            result.put("partial_failure_warning", "");
            result.putNull("warnings");
            ObjectNode data = F.objectNode();
            data.set("result", result);
            return Route.Reply.json(reply("", data));
        });
    }

    /**
     * Ray's {@code GET /api/v0/logs/file}: the last {@code lines} lines of an actor's
     * ({@code actor_id}), a worker's ({@code pid}, {@code node_ip}) or a named file's
     * ({@code filename}, {@code node_ip}) log, read by the node that holds it;
     * {@code suffix=err} for stderr.
     */
    private static Route.Reply log(HeadView head, java.util.Map<String, String> q) throws Route.HttpError {
        String actorId = Query.text(q, "actor_id", null);
        if (actorId != null && !Ids.isHex(actorId, 32)) {
            throw new Route.HttpError(400, "query parameter 'actor_id' must be 32 hex characters");
        }
        long pid = Query.integer(q, "pid", 0, 0, Integer.MAX_VALUE);
        String filename = Query.text(q, "filename", null);
        if ((actorId != null ? 1 : 0) + (pid > 0 ? 1 : 0) + (filename != null ? 1 : 0) != 1) {
            throw new Route.HttpError(400, "say which log with exactly one of the query parameters 'actor_id', 'pid' "
                    + "and 'filename'");
        }
        int lines = Query.integer(q, "lines", DEFAULT_LIMIT, 1, MAX_LOG_LINES);
        String format = Query.text(q, "format", "leading_1");
        if (!format.equals("text") && !format.equals("leading_1")) {
            throw new Route.HttpError(400, "query parameter 'format' must be 'text' or 'leading_1'");
        }
        String suffix = Query.text(q, "suffix", "out");
        if (!suffix.equals("out") && !suffix.equals("err")) {
            throw new Route.HttpError(400, "query parameter 'suffix' must be 'out' or 'err'");
        }
        ObjectNode read;
        try {
            read = head.log(new ClusterLogs.Ask(actorId, pid, filename, Query.text(q, "node_ip", null),
                    nodeId(q), suffix.equals("err"), lines, -1));
        } catch (ClusterLogs.Refused e) {
            throw new Route.HttpError(e.status(), e.getMessage());
        }
        if (!read.has("text")) {
            throw new Route.HttpError(404, "no single log file named " + HttpFace.clip(filename) + " on node "
                    + read.path("node_ip").asText() + "; it has " + read.path("files").size() + " matching files");
        }
        String text = read.path("text").asText();
        return Route.Reply.text(200, format.equals("leading_1") ? "1" + text : text);
    }

    private static String nodeId(java.util.Map<String, String> q) throws Route.HttpError {
        String id = Query.text(q, "node_id", null);
        if (id != null && !Ids.isHex(id, 56)) throw new Route.HttpError(400, "query parameter 'node_id' must be 56 hex characters");
        return id;
    }

    /**
     * {@code GET /api/beam/stack?actor_id=...}: the actor process's Python stack, as
     * {@code ray stack --actor-id} reports it. Token-guarded beyond loopback like every route
     * but the health probes: a stack names code and files.
     */
    private static Route.Reply actorStack(HeadView head, java.util.Map<String, String> q) throws Route.HttpError {
        String actorId = Query.text(q, "actor_id", null);
        if (actorId == null || !Ids.isHex(actorId, 32)) {
            throw new Route.HttpError(400, "query parameter 'actor_id' (32 hex characters) is required");
        }
        return Route.Reply.json(head.actorStack(actorId));
    }

    static ObjectNode reply(String message, ObjectNode data) {
        ObjectNode r = F.objectNode();
        r.put("result", true);
        r.put("msg", message);
        r.set("data", data);
        return r;
    }
}
