package beam.cli;

import beam.codec.FrameCodec;
import beam.config.Environment;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ray list nodes|actors|placement-groups|tasks [--json]}: Ray's state CLI names. */
@Command(name = "list", addMethodSubcommands = false, description = "List the cluster's nodes, actors, placement groups or tasks (actor calls).")
public final class ListCommand implements Callable<Integer> {
    private final Environment env;

    ListCommand(Environment env) {
        this.env = env;
    }

    @Parameters(index = "0", description = "What to list: nodes, actors, placement-groups or tasks.")
    String what;

    @Option(names = "--json", description = "Print JSON.")
    boolean json;

    @Mixin
    LocalDaemon daemon = new LocalDaemon();

    @Override
    public Integer call() throws Exception {
        if (!List.of("nodes", "actors", "placement-groups", "tasks").contains(what)) {
            System.err.println("beam: unknown resource '" + what + "'; say nodes, actors, placement-groups or tasks.");
            return 2;
        }
        ObjectNode status = daemon.ask(env, "list " + what, "status");
        if (status == null) return 1;
        ArrayNode rows = switch (what) {
            case "nodes" -> nodes(status);
            case "actors" -> (ArrayNode) status.path("actors");
            case "tasks" -> json ? (ArrayNode) status.path("tasks") : tasks(status); // JSON: Ray's rows as they are
            default -> groups(status);
        };
        if (json) {
            System.out.println(FrameCodec.json().writerWithDefaultPrettyPrinter().writeValueAsString(rows));
            return 0;
        }
        List<String> columns = switch (what) {
            case "nodes" -> List.of("node_id", "node_ip", "is_head_node", "state", "accelerators", "resources_total");
            case "actors" -> List.of("actor_id", "class_name", "state", "pid", "node_ip", "accelerator_ids", "placement_group_id");
            case "tasks" -> List.of("task_id", "name", "label", "state", "type", "actor_id", "node_id", "worker_pid", "age_s",
                    "error_type");
            default -> List.of("placement_group_id", "name", "strategy", "state", "bundles", "waiting_reason");
        };
        System.out.print(Table.render(columns, rows));
        return 0;
    }

    private static ArrayNode nodes(ObjectNode status) {
        ArrayNode out = JsonNodeFactory.instance.arrayNode();
        for (JsonNode n : status.path("nodes")) {
            ObjectNode o = out.addObject();
            o.put("node_id", n.path("NodeID").asText());
            o.put("node_ip", n.path("NodeManagerAddress").asText());
            o.put("is_head_node", n.path("IsHead").asBoolean());
            o.put("state", n.path("Alive").asBoolean() ? "ALIVE" : "DEAD");
            o.set("gpus", n.path("GpuIds"));
            o.put("accelerators", StatusCommand.accelerators(n).replaceFirst("^: ", ""));
            o.set("accelerator_details", n.path("Accelerators"));
            o.set("resources_total", n.path("Resources"));
            if (!n.path("Alive").asBoolean()) o.put("death_reason", n.path("DeathReasonMessage").asText());
        }
        return out;
    }

    /** Ray's task rows as the daemon sent them, with the label as a column and a running call's age. */
    private static ArrayNode tasks(ObjectNode status) {
        ArrayNode out = JsonNodeFactory.instance.arrayNode();
        long now = System.currentTimeMillis();
        for (JsonNode t : status.path("tasks")) {
            ObjectNode o = ((ObjectNode) t).deepCopy();
            o.set("label", t.path("beam_label"));
            if (t.path("state").asText().equals("RUNNING") && t.hasNonNull("start_time_ms")) {
                o.put("age_s", Math.max(0, now - t.path("start_time_ms").asLong()) / 1000);
            } else {
                o.putNull("age_s");
            }
            out.add(o);
        }
        return out;
    }

    private static ArrayNode groups(ObjectNode status) {
        ArrayNode out = JsonNodeFactory.instance.arrayNode();
        List<String> ids = new ArrayList<>();
        status.path("placement_groups").fieldNames().forEachRemaining(ids::add);
        for (String id : ids) {
            JsonNode g = status.path("placement_groups").path(id);
            ObjectNode o = out.addObject();
            o.put("placement_group_id", id);
            o.put("name", g.path("name").asText());
            o.put("strategy", g.path("strategy").asText());
            o.put("state", g.path("state").asText());
            o.set("bundles", g.path("bundles"));
            o.set("bundles_to_node_id", g.path("bundles_to_node_id"));
            o.put("waiting_reason", g.path("beam_waiting_reason").asText(""));
        }
        return out;
    }
}
