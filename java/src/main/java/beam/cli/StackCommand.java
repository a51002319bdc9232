package beam.cli;

import beam.codec.FrameCodec;
import beam.config.Environment;
import beam.protocol.Request;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ray stack}: the Python stack of every thread of every actor process and connected
 * driver in the cluster, from any node, each under a header naming the process. Dumped by
 * faulthandler inside each process (no py-spy, no ptrace); a process that cannot dump is
 * listed with the reason. Exits 1 when some process or node did not answer.
 */
@Command(name = "stack", addMethodSubcommands = false,
        description = "Print the Python stack of every thread of the cluster's actors and drivers.")
public final class StackCommand implements Callable<Integer> {
    private final Environment env;

    StackCommand(Environment env) {
        this.env = env;
    }

    @Option(names = "--node-ip", paramLabel = "IP", description = "Only the processes on the node with this IP.")
    String nodeIp;

    @Option(names = "--actor-id", paramLabel = "ID", description = "Only this actor's process (32 hex characters, as ray list actors shows).")
    String actorId;

    @Option(names = "--pid", paramLabel = "PID", description = "Only the actor process or driver with this pid.")
    long pid;

    @Option(names = "--json", description = "Print the report as JSON.")
    boolean json;

    @Mixin
    LocalDaemon daemon = new LocalDaemon();

    @Override
    public Integer call() throws Exception {
        if (actorId != null && !actorId.matches("[0-9a-f]{32}")) {
            System.err.println("beam: --actor-id must be an actor id of 32 hex characters, as ray list actors shows; got '"
                    + (actorId.length() > 40 ? actorId.substring(0, 40) + "..." : actorId) + "'");
            return 2;
        }
        if (pid < 0) {
            System.err.println("beam: --pid must be a positive process id, as ray list actors shows");
            return 2;
        }
        ObjectNode report;
        try {
            report = daemon.ask(env, "stack", rid -> new Request.Stack(rid, nodeIp, actorId, pid));
        } catch (IOException e) {
            System.err.println("beam: ray stack: " + e.getMessage());
            return 2;
        }
        if (report == null) return 1;
        if (json) System.out.println(FrameCodec.json().writerWithDefaultPrettyPrinter().writeValueAsString(report));
        else System.out.print(format(report));
        boolean complete = report.path("nodes_not_answering").isEmpty();
        for (JsonNode p : report.path("processes")) complete &= p.has("stack");
        return complete ? 0 : 1;
    }

    /** One block per process: its header line, then its dump indented, or why there is none. */
    static String format(ObjectNode report) {
        StringBuilder sb = new StringBuilder();
        if (report.path("processes").isEmpty()) sb.append("No actor processes or drivers to show.\n");
        for (JsonNode p : report.path("processes")) {
            sb.append(header(p)).append('\n');
            if (p.has("stack")) {
                for (String line : p.path("stack").asText().split("\n", -1)) {
                    if (!line.isEmpty()) sb.append("    ").append(line).append('\n');
                }
            } else {
                sb.append("    (no stack: ").append(p.path("error").asText()).append(")\n");
            }
            sb.append('\n');
        }
        for (JsonNode n : report.path("nodes_not_answering")) {
            sb.append("Node ").append(n.path("hostname").asText()).append(" (").append(n.path("node_ip").asText())
                    .append(") did not answer: ").append(n.path("error").asText()).append('\n');
        }
        return sb.toString();
    }

    private static String header(JsonNode p) {
        StringBuilder h = new StringBuilder();
        if ("actor".equals(p.path("role").asText())) {
            h.append("Actor ").append(p.path("class_name").asText());
            if (p.hasNonNull("name")) h.append(" '").append(p.path("name").asText()).append('\'');
            h.append(" actor_id=").append(p.path("actor_id").asText());
        } else {
            h.append("Driver job_id=").append(p.path("job_id").asText());
        }
        h.append(" pid=").append(p.path("pid").asLong()).append(" node_ip=").append(p.path("node_ip").asText());
        if (p.hasNonNull("call")) h.append(" call=").append(p.path("call").asText());
        return h.toString();
    }
}
