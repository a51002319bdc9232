package beam.cli;

import beam.config.Environment;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ray list actors|nodes|placement-groups|tasks [--filter K=V]... [--limit N] [--detail]
 * [--format F]}: Ray's state CLI. The daemon filters and limits (the {@code state_list} op);
 * only the page comes back, with the count that matched, so the CLI can say what it left out.
 */
@Command(name = "list", addMethodSubcommands = false, description = "List the cluster's actors, nodes, placement groups or tasks (actor calls): Ray's state CLI.")
public final class ListCommand implements Callable<Integer> {
    private final Environment env;

    ListCommand(Environment env) {
        this.env = env;
    }

    @Parameters(index = "0", description = "What to list: actors, nodes, placement-groups or tasks.")
    String what;

    @Option(names = {"-f", "--filter"}, description = "key=value or key!=value; several are ANDed. String values compare case-insensitively.")
    List<String> filter = new ArrayList<>();

    @Option(names = "--limit", defaultValue = "100", description = "Maximum number of entries to return (1..10000). 100 by default.")
    long limit;

    @Option(names = "--detail", description = "All columns (YAML unless --format says otherwise).")
    boolean detail;

    @Option(names = "--format", defaultValue = "default", description = "default, json, yaml or table.")
    String format;

    @Option(names = "--json", description = "beam's form: every column, indented JSON (as --detail --format json).")
    boolean json;

    @Mixin
    LocalDaemon daemon = new LocalDaemon();

    @Override
    public Integer call() throws Exception {
        if (!StateOutput.FORMATS.contains(format)) {
            System.err.println("beam: --format must be one of " + String.join(", ", StateOutput.FORMATS) + ", got '" + format + "'.");
            return 2;
        }
        ArrayNode filters;
        try {
            filters = StateOutput.filters(filter);
        } catch (IllegalArgumentException e) {
            System.err.println("beam: " + e.getMessage());
            return 2;
        }
        ObjectNode reply;
        try {
            reply = StateOutput.list(daemon, env, "list " + what, what, filters, limit, detail || json, null);
        } catch (DaemonClient.Refused e) {
            System.err.println("beam: " + e.getMessage());
            return 2;
        }
        if (reply == null) return 1;
        ArrayNode rows = (ArrayNode) reply.path("result");
        if (what.startsWith("node")) for (JsonNode n : rows) addAcceleratorSummary((ObjectNode) n);
        int matched = reply.path("num_filtered").asInt();
        if (matched > rows.size()) {
            System.err.println("UserWarning: Limit last " + rows.size() + " entries (Total " + matched + "). Use `--filter` "
                    + "to reduce the amount of data to return or setting a higher limit with `--limit` to see all data.");
        }
        if (json) {
            System.out.print(StateOutput.pretty(rows));
        } else if (rows.isEmpty()) {
            System.out.println("No resource in the cluster");
        } else {
            System.out.print(StateOutput.render(rows, detail && format.equals("default") ? "yaml" : format));
        }
        return 0;
    }

    /** beam's one-line accelerator summary of a node ("2 NVIDIA GPU (H200) [0,1]"), beside its details. */
    private static void addAcceleratorSummary(ObjectNode n) {
        if (!n.has("accelerator_details")) return;
        ObjectNode wrapped = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
        wrapped.set("Accelerators", n.get("accelerator_details"));
        n.put("accelerators", StatusCommand.accelerators(wrapped).replaceFirst("^: ", ""));
    }
}
