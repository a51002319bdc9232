package beam.cli;

import beam.protocol.Request;
import beam.codec.FrameCodec;
import beam.config.Environment;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code ray status}: nodes, resources used/total, actors holding GPUs, pending groups. */
@Command(name = "status", addMethodSubcommands = false, description = "Show the cluster's nodes, resources, actors and pending placement groups.")
public final class StatusCommand implements Callable<Integer> {
    private final Environment env;

    StatusCommand(Environment env) {
        this.env = env;
    }

    @Option(names = "--json", description = "Print the raw status as JSON.")
    boolean json;

    @Mixin
    LocalDaemon daemon = new LocalDaemon();

    @Override
    public Integer call() throws Exception {
        ObjectNode status = daemon.ask(env, "status", Request.Status::new);
        if (status == null) return 1;
        if (json) {
            System.out.println(FrameCodec.json().writerWithDefaultPrettyPrinter().writeValueAsString(status));
        } else {
            System.out.print(format(status));
        }
        return 0;
    }

    static String format(ObjectNode s) {
        StringBuilder out = new StringBuilder();
        out.append("======== Cluster status: ").append(LocalDateTime.now().format(DateTimeFormatter.ISO_LOCAL_DATE_TIME))
                .append(" ========\nNode status\n").append("-".repeat(63)).append("\nActive:\n");
        int dead = 0;
        for (JsonNode n : s.path("nodes")) {
            if (!n.path("Alive").asBoolean()) {
                dead++;
                continue;
            }
            out.append(" 1 node_").append(n.path("NodeID").asText()).append(" (").append(n.path("NodeManagerAddress").asText())
                    .append(n.path("IsHead").asBoolean() ? ", head" : "").append(")").append(accelerators(n)).append('\n');
        }
        out.append("Dead:\n");
        if (dead == 0) out.append(" (no dead nodes)\n");
        for (JsonNode n : s.path("nodes")) {
            if (!n.path("Alive").asBoolean()) {
                out.append(" node_").append(n.path("NodeID").asText()).append(" (").append(n.path("NodeManagerAddress").asText())
                        .append("): ").append(n.path("DeathReasonMessage").asText()).append('\n');
            }
        }
        StringBuilder warnings = new StringBuilder();
        for (JsonNode n : s.path("nodes")) {
            for (JsonNode w : n.path("BeamFacts").path("version_warnings")) warnings.append(" ").append(w.asText()).append('\n');
        }
        if (!warnings.isEmpty()) out.append("Version warnings (install the same versions everywhere):\n").append(warnings);
        out.append("\nResources\n").append("-".repeat(63)).append("\nUsage:\n");
        JsonNode total = s.path("total");
        JsonNode available = s.path("available");
        for (Iterator<Map.Entry<String, JsonNode>> it = total.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String key = e.getKey();
            if (key.startsWith("node:")) continue;
            double t = e.getValue().asDouble();
            double used = t - available.path(key).asDouble();
            boolean bytes = key.equals("memory") || key.equals("object_store_memory");
            out.append(' ').append(bytes ? gib(used) : num(used)).append('/').append(bytes ? gib(t) : num(t)).append(' ')
                    .append(key).append('\n');
        }
        out.append("\nActors holding accelerators:\n");
        int holders = 0;
        for (JsonNode a : s.path("actors")) {
            if (a.path("state").asText().equals("DEAD")) continue;
            for (Iterator<Map.Entry<String, JsonNode>> it = a.path("accelerator_ids").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (e.getValue().isEmpty()) continue;
                holders++;
                out.append(' ').append(e.getKey()).append(' ').append(e.getValue().toString()).append(" on ")
                        .append(a.path("node_ip").asText()).append(": ").append(a.path("class_name").asText())
                        .append(" pid=").append(a.path("pid").asLong()).append(" (").append(a.path("state").asText()).append(")\n");
            }
        }
        if (holders == 0) out.append(" (none)\n");
        out.append(TelemetryLines.format(s, System.currentTimeMillis()));
        out.append("\nDemands:\n");
        int pending = 0;
        for (JsonNode g : s.path("placement_groups")) {
            if (!g.path("state").asText().equals("PENDING")) continue;
            pending++;
            out.append(" placement group ").append(g.path("placement_group_id").asText()).append(' ')
                    .append(g.path("bundles").toString()).append(" (").append(g.path("strategy").asText())
                    .append("): ").append(g.path("beam_waiting_reason").asText()).append('\n');
        }
        pending += pendingActors(s.path("actors"), out);
        if (pending == 0) out.append(" (no resource demands)\n");
        JsonNode longCalls = s.path("long_calls");
        if (!longCalls.isEmpty()) {
            out.append("\nCalls running longer than ").append(s.path("long_call_threshold_ms").asLong() / 1000).append(" s:\n");
            for (JsonNode c : longCalls) out.append(' ').append(c.path("message").asText()).append('\n');
        }
        int loops = s.path("engine_loops_running").asInt();
        if (loops > 0) {
            out.append("\nvLLM engine loops running (RayWorkerProc.run, for the life of the engine): ").append(loops).append('\n');
        }
        return out.toString();
    }

    /** Lines shown for actors waiting to be placed; the rest are counted in one line. */
    static final int PENDING_ACTOR_LINES = 20;

    /**
     * The actors waiting for a node, outside placement groups (those wait for their group,
     * listed above): each with its request and why it waits. Returns how many wait.
     */
    static int pendingActors(JsonNode actors, StringBuilder out) {
        int waiting = 0;
        for (JsonNode a : actors) {
            if (!a.path("state").asText().equals("PENDING") || !a.path("placement_group_id").isNull()) continue;
            if (++waiting > PENDING_ACTOR_LINES) continue;
            out.append(" actor ").append(a.path("class_name").asText()).append(' ').append(a.path("actor_id").asText())
                    .append(' ').append(a.path("resources").toString()).append(": ")
                    .append(a.path("beam_waiting_reason").asText("waiting for resources in use to be freed")).append('\n');
        }
        if (waiting > PENDING_ACTOR_LINES) {
            out.append(" ... and ").append(waiting - PENDING_ACTOR_LINES).append(" more actors waiting (ray list actors --filter state=PENDING_CREATION)\n");
        }
        return waiting;
    }

    /** ", 4 NVIDIA GPU (H200) [0,1,2,3]" per accelerator resource of a node, as the node reported it. */
    static String accelerators(JsonNode node) {
        StringBuilder sb = new StringBuilder();
        for (Iterator<Map.Entry<String, JsonNode>> it = node.path("Accelerators").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode a = e.getValue();
            sb.append(sb.isEmpty() ? ": " : ", ").append(a.path("ids").size()).append(' ').append(a.path("vendor").asText())
                    .append(' ').append(e.getKey());
            if (a.hasNonNull("type")) sb.append(" (").append(a.path("type").asText()).append(')');
            sb.append(' ').append(a.path("ids").toString());
        }
        return sb.toString();
    }

    private static String num(double v) {
        return String.format("%.1f", v);
    }

    private static String gib(double bytes) {
        return bytes == 0 ? "0B" : String.format("%.2fGiB", bytes / (1L << 30));
    }
}
