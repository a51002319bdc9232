package beam.cli;

import beam.protocol.Request;
import beam.codec.FrameCodec;
import beam.config.Environment;
import beam.views.HostChecks;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ray doctor}: every node's reachability from every other on its node IP, the
 * interface carrying each node IP (with the NCCL/GLOO_SOCKET_IFNAME hint), GPU visibility
 * and the version matrix. Exits 1 with a readable report when something is wrong.
 */
@Command(name = "doctor", addMethodSubcommands = false, description = "Check the cluster for network, version and GPU problems.")
public final class DoctorCommand implements Callable<Integer> {
    private final Environment env;

    DoctorCommand(Environment env) {
        this.env = env;
    }

    @Option(names = "--json", description = "Print the report as JSON.")
    boolean json;

    @Mixin
    LocalDaemon daemon = new LocalDaemon();

    @Override
    public Integer call() throws Exception {
        ObjectNode report = daemon.ask(env, "doctor", Request.Doctor::new);
        if (report == null) return 1;
        if (json) {
            System.out.println(FrameCodec.json().writerWithDefaultPrettyPrinter().writeValueAsString(report));
        } else {
            System.out.print(format(report));
        }
        return report.path("problems").isEmpty() ? 0 : 1;
    }

    static String format(ObjectNode r) {
        StringBuilder sb = new StringBuilder("beam doctor\n\nNodes\n");
        for (JsonNode n : r.path("nodes")) {
            JsonNode v = n.path("versions");
            sb.append("  ").append(n.path("node_ip").asText()).append(n.path("is_head").asBoolean() ? " (head)" : "")
                    .append("  interface ").append(n.path("interface").asText("NONE"))
                    .append("  beam ").append(v.path("beam").asText("?")).append(", python ").append(v.path("python").asText("?"))
                    .append(", vllm ").append(v.path("vllm").asText("-")).append(", torch ").append(v.path("torch").asText("-"))
                    .append('\n');
            if (n.path("accelerators").isEmpty()) sb.append("    accelerators: none\n");
            for (var it = n.path("accelerators").fields(); it.hasNext(); ) {
                var e = it.next();
                JsonNode a = e.getValue();
                sb.append("    ").append(e.getKey()).append(' ').append(a.path("ids").toString()).append(": ")
                        .append(a.path("vendor").asText()).append(a.hasNonNull("type") ? " " + a.path("type").asText() : "")
                        .append(" (").append(a.path("source").asText()).append("), actors get ")
                        .append(a.path("visible_var").asText()).append(", node started with ")
                        .append(a.path("visible_var").asText()).append('=')
                        .append(a.path("node_visible_value").asText("(unset)")).append('\n');
            }
            JsonNode host = n.path("host_limits");
            if (!host.isEmpty()) {
                sb.append("    host: ").append(host.path("shm_path").asText()).append(' ')
                        .append(host.has("shm_bytes") ? HostChecks.bytes(host.path("shm_bytes").asLong()) : "?")
                        .append(", open files ").append(limit(host.path("open_files"), false))
                        .append(", locked memory ").append(limit(host.path("locked_memory"), true)).append('\n');
                if (!host.path("env").isEmpty()) {
                    List<String> vars = new java.util.ArrayList<>();
                    host.path("env").properties().forEach(e -> vars.add(e.getKey() + "=" + e.getValue().asText()));
                    sb.append("    env: ").append(String.join(" ", vars)).append('\n');
                }
            }
            if (n.has("accelerator_note")) sb.append("    note: ").append(n.path("accelerator_note").asText()).append('\n');
            if (n.has("hint")) sb.append("    hint: ").append(n.path("hint").asText()).append('\n');
        }
        sb.append("\nReachability (TCP from each node to every other node IP)\n");
        if (r.path("reachability").isEmpty()) sb.append("  (one node: nothing to probe)\n");
        for (JsonNode p : r.path("reachability")) {
            sb.append("  ").append(p.path("from").asText()).append(" -> ").append(p.path("to").asText()).append("  ")
                    .append(p.path("ok").asBoolean() ? "ok (" + p.path("ms").asDouble() + " ms)" : "FAILED: " + p.path("error").asText())
                    .append('\n');
        }
        sb.append('\n');
        if (!r.path("warnings").isEmpty()) {
            sb.append("Warnings\n");
            for (JsonNode w : r.path("warnings")) sb.append("  - ").append(w.asText()).append('\n');
        }
        if (r.path("problems").isEmpty()) {
            sb.append("No problems found.\n");
        } else {
            sb.append("Problems\n");
            for (JsonNode p : r.path("problems")) sb.append("  - ").append(p.asText()).append('\n');
        }
        return sb.toString();
    }

    /** A limit as `ulimit` shows it; sizes as MiB or GiB. */
    private static String limit(JsonNode value, boolean size) {
        if (value.isMissingNode()) return "?";
        long v = value.asLong();
        return v < 0 ? "unlimited" : size ? HostChecks.bytes(v) : String.valueOf(v);
    }
}
