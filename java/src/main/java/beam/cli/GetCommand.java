package beam.cli;

import beam.config.Environment;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code ray get actors|nodes|placement-groups ID}: one row with every column, as YAML (Ray's form). */
@Command(name = "get", addMethodSubcommands = false, description = "Show one actor, node or placement group by id, every column.")
public final class GetCommand implements Callable<Integer> {
    private final Environment env;

    GetCommand(Environment env) {
        this.env = env;
    }

    @Parameters(index = "0", description = "What to get: actors, nodes or placement-groups.")
    String what;

    @Parameters(index = "1", description = "Its id (as `ray list` shows it).")
    String id;

    @Mixin
    LocalDaemon daemon = new LocalDaemon();

    @Override
    public Integer call() throws Exception {
        ObjectNode reply;
        try {
            reply = StateOutput.list(daemon, env, "get " + what, what, JsonNodeFactory.instance.arrayNode(), 1, true, id);
        } catch (DaemonClient.Refused e) {
            System.err.println("beam: " + e.getMessage());
            return 2;
        }
        if (reply == null) return 1;
        ArrayNode rows = (ArrayNode) reply.path("result");
        if (rows.isEmpty()) {
            System.out.println("Resource with id=" + id + " not found in the cluster.");
            return 0;
        }
        System.out.print(Yaml.document(rows));
        return 0;
    }
}
