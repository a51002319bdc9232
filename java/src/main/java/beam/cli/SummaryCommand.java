package beam.cli;

import beam.config.Environment;
import beam.protocol.Request;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ray summary actors|tasks}: counts per actor class (or task name) and state, counted
 * by the daemon ({@code state_summary}), printed in Ray's layout.
 */
@Command(name = "summary", addMethodSubcommands = false, description = "Count actors per class (or tasks per name) and state.")
public final class SummaryCommand implements Callable<Integer> {
    private final Environment env;

    SummaryCommand(Environment env) {
        this.env = env;
    }

    @Parameters(index = "0", description = "What to summarize: actors or tasks.")
    String what;

    @Option(names = "--json", description = "Print Ray's summary response as JSON.")
    boolean json;

    @Mixin
    LocalDaemon daemon = new LocalDaemon();

    @Override
    public Integer call() throws Exception {
        ObjectNode reply;
        try {
            reply = daemon.ask(env, "summary " + what, rid -> new Request.StateSummary(rid, what, null));
        } catch (DaemonClient.Refused e) {
            System.err.println("beam: " + e.getMessage());
            return 2;
        }
        if (reply == null) return 1;
        JsonNode cluster = reply.path("result").path("node_id_to_summary").path("cluster");
        if (json) {
            System.out.print(StateOutput.pretty(reply));
            return 0;
        }
        System.out.print(render(cluster, what.equals("actors") ? "Actors" : "Tasks"));
        return 0;
    }

    /** Ray's layout: the totals as YAML lines, then one row per group with its columns sorted by name. */
    static String render(JsonNode cluster, String title) {
        StringBuilder stats = new StringBuilder();
        for (Iterator<Map.Entry<String, JsonNode>> it = cluster.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!e.getKey().equals("summary") && !e.getKey().equals("summary_by")) {
                stats.append(e.getKey()).append(": ").append(e.getValue().asText()).append('\n');
            }
        }
        ArrayNode rows = JsonNodeFactory.instance.arrayNode();
        List<String> columns = new ArrayList<>();
        int i = 0;
        for (JsonNode group : cluster.path("summary")) {
            ObjectNode row = rows.addObject();
            row.put("", i++);
            List<String> names = new ArrayList<>();
            group.fieldNames().forEachRemaining(names::add);
            names.sort(null);
            for (String n : names) {
                JsonNode v = group.get(n);
                row.put(n, v.isObject() ? counts(v) : v.asText());
            }
            if (columns.isEmpty()) {
                columns.add("");
                columns.addAll(names);
            }
        }
        return "\n======== " + title + " Summary: " + LocalDateTime.now() + " ========\nStats:\n"
                + "------------------------------------\n" + stats + "\nTable (group by "
                + cluster.path("summary_by").asText() + "):\n------------------------------------\n"
                + (rows.isEmpty() ? "(none)\n" : Table.render(columns, rows)) + "\n";
    }

    private static String counts(JsonNode states) {
        List<String> parts = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = states.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            parts.add(e.getKey() + ": " + e.getValue().asInt());
        }
        parts.sort(null);
        return String.join(", ", parts);
    }
}
