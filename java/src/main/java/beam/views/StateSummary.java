package beam.views;

import beam.cluster.ClusterSnapshot;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * {@code ray summary actors|tasks} in Ray's SummaryApiResponse shape: rows grouped per actor
 * class ({@code ActorSummaries}) or per task name ({@code TaskSummaries}, by func_name), each
 * group with its count per state, under {@code result.node_id_to_summary.cluster}.
 */
public final class StateSummary {
    public static final List<String> TABLES = List.of("actors", "tasks");
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private StateSummary() {
    }

    public static ObjectNode of(StateTables tables, String table, List<StateQuery.Filter> filters, ClusterSnapshot snapshot) {
        String name = table == null ? "" : table.replace('-', '_');
        if (!TABLES.contains(name)) {
            throw new StateQuery.Invalid("Unknown summary resource '" + StateQuery.clip(String.valueOf(table))
                    + "': choose from " + String.join(", ", TABLES) + ".");
        }
        StateTable<?> t = tables.table(name);
        StateQuery query = new StateQuery(name, filters, StateQuery.MAX_LIMIT, true);
        List<ObjectNode> rows = query.allMatching(t, snapshot);
        int total = t.records().apply(snapshot).size();
        ObjectNode cluster = name.equals("actors") ? actors(rows) : tasks(rows);
        ObjectNode r = F.objectNode();
        r.put("total", total);
        r.putObject("result").putObject("node_id_to_summary").set("cluster", cluster);
        r.put("num_after_truncation", total);
        r.put("num_filtered", rows.size());
        r.put("partial_failure_warning", "");
        r.putArray("warnings");
        return r;
    }

    /** Ray's ActorSummaries: class name to {class_name, state_counts}, and total_actors. */
    public static ObjectNode actors(List<ObjectNode> rows) {
        ObjectNode out = F.objectNode();
        ObjectNode summary = out.putObject("summary");
        for (ObjectNode a : rows) {
            String cls = a.path("class_name").asText();
            ObjectNode group = summary.has(cls) ? (ObjectNode) summary.get(cls) : summary.putObject(cls);
            if (!group.has("class_name")) group.put("class_name", cls);
            count(group.with("state_counts"), a.path("state").asText());
        }
        out.put("total_actors", rows.size());
        out.put("summary_by", "class");
        return out;
    }

    /**
     * Ray's TaskSummaries by func_name: task name to {func_or_class_name, type, state_counts},
     * and the totals per kind (NORMAL_TASK, ACTOR_TASK, ACTOR_CREATION_TASK).
     */
    public static ObjectNode tasks(List<ObjectNode> rows) {
        ObjectNode out = F.objectNode();
        ObjectNode summary = out.putObject("summary");
        int normal = 0;
        int actorTasks = 0;
        int scheduled = 0;
        for (ObjectNode t : rows) {
            String name = t.path("name").asText("");
            if (name.isEmpty()) name = t.path("func_or_class_name").asText("");
            String type = t.path("type").asText();
            ObjectNode group = summary.has(name) ? (ObjectNode) summary.get(name) : summary.putObject(name);
            if (!group.has("func_or_class_name")) {
                group.put("func_or_class_name", name);
                group.put("type", type);
            }
            count(group.with("state_counts"), t.path("state").asText());
            switch (type) {
                case "NORMAL_TASK" -> normal++;
                case "ACTOR_TASK" -> actorTasks++;
                case "ACTOR_CREATION_TASK" -> scheduled++;
                default -> { }
            }
        }
        out.put("total_tasks", normal);
        out.put("total_actor_tasks", actorTasks);
        out.put("total_actor_scheduled", scheduled);
        out.put("summary_by", "func_name");
        return out;
    }

    private static void count(ObjectNode counts, String state) {
        counts.put(state, counts.path(state).asInt(0) + 1);
    }
}
