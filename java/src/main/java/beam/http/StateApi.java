package beam.http;

import beam.util.Versions;
import beam.cluster.ClusterSnapshot;
import beam.views.ClusterLogs;
import beam.views.ClusterViews;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import beam.util.Ids;
import beam.views.StateQuery;
import beam.views.StateTable;
import beam.views.StateTables;
import java.util.ArrayList;
import java.util.List;

/**
 * The head's JSON state API under the dashboard, in the response shapes of Ray's dashboard
 * ({@code {"result": true, "msg": "", "data": {...}}}): the list endpoint of every table
 * {@code ray list} serves ({@link StateTables}: {@code /api/v0/<table>}), {@code /api/cluster_status} as the Ray
 * dashboard's overview reads it, an actor's log tail, and {@code /api/beam/dashboard}, the
 * one view the dashboard page renders. All read one cached status view ({@link HeadClusterReads}).
 */
final class StateApi {
    static final int DEFAULT_LIMIT = 100;
    /** The tables {@code /api/v0/<table>} serves: one route per table registered there. */
    static final StateTables TABLES = StateTables.standard();
    /** Where Ray's state API lists a table: {@code /api/v0/placement_groups}. */
    static final String LIST_PREFIX = "/api/v0/";
    static final int MAX_LOG_LINES = 1_000;
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private StateApi() {
    }

    static List<Route> routes(HeadClusterReads head) {
        return routes(head, TABLES);
    }

    /** Every route of the head's API, with one {@code /api/v0/<table>} per table of {@code tables}. */
    static List<Route> routes(HeadClusterReads head, StateTables tables) {
        List<Route> routes = new ArrayList<>();
        for (StateTable<?> t : tables.all()) routes.add(list(LIST_PREFIX + t.name(), t.name(), tables, head));
        routes.addAll(List.of(
                new Route("/api/cluster_status", false, q -> Route.Reply.json(reply("Got cluster status.",
                        ClusterStatusView.of(head.status())))),
                new Route("/api/v0/logs/file", false, q -> log(head, q)),
                new Route("/api/beam/stack", false, q -> actorStack(head, q)),
                new Route("/api/version", false, q -> {
                    ObjectNode v = F.objectNode();
                    v.put("version", "beam " + Versions.BEAM);
                    v.put("ray_version", Versions.RAY);
                    v.put("ray_commit", "beam");
                    return Route.Reply.json(v);
                }),
                new Route("/api/beam/dashboard", false, q -> {
                    ObjectNode view = ClusterViews.status(head.status());
                    view.put("time_ms", System.currentTimeMillis());
                    return Route.Reply.json(view);
                })));
        return routes;
    }

    /**
     * Ray's {@code GET /api/v0/<table>?limit=&detail=&filter_keys=&filter_predicates=&filter_values=}
     * (the filter parameters repeat, one of each per filter, ANDed), answered by the same
     * query engine as the CLI's {@code state_list}.
     */
    private static Route list(String path, String table, StateTables tables, HeadClusterReads head) {
        return new Route(path, false, q -> {
            int limit = Query.integer(q, "limit", StateQuery.DEFAULT_LIMIT, 1, StateQuery.MAX_LIMIT);
            boolean detail = Query.bool(q, "detail", false);
            List<String> keys = Query.all(q, "filter_keys");
            List<String> predicates = Query.all(q, "filter_predicates");
            List<String> values = Query.all(q, "filter_values");
            if (predicates.size() != keys.size() || values.size() != keys.size()) {
                throw new Route.HttpError(400, "filter_keys, filter_predicates and filter_values must come in threes "
                        + "(one of each per filter), got " + keys.size() + ", " + predicates.size() + " and " + values.size());
            }
            List<StateQuery.Filter> filters = new ArrayList<>();
            for (int i = 0; i < keys.size(); i++) filters.add(new StateQuery.Filter(keys.get(i), predicates.get(i), values.get(i)));
            try {
                ObjectNode result = new StateQuery(table, filters, limit, detail).run(tables, head.status());
                ObjectNode data = F.objectNode();
                data.set("result", result);
                return Route.Reply.json(reply("", data));
            } catch (StateQuery.Invalid e) {
                throw new Route.HttpError(400, e.getMessage());
            }
        });
    }

    /**
     * Ray's {@code GET /api/v0/logs/file}: the last {@code lines} lines of an actor's
     * ({@code actor_id}), a worker's ({@code pid}, {@code node_ip}) or a named file's
     * ({@code filename}, {@code node_ip}) log, read by the node that holds it;
     * {@code suffix=err} for stderr.
     */
    private static Route.Reply log(HeadClusterReads head, java.util.Map<String, String> q) throws Route.HttpError {
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
    private static Route.Reply actorStack(HeadClusterReads head, java.util.Map<String, String> q) throws Route.HttpError {
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
