package beam.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.Map;

/**
 * {@code ray status}'s accelerator telemetry: per device of every live node its utilization,
 * memory used/total and the actor holding it (from the actors' {@code accelerator_ids}), and
 * per node what went wrong with its vendor tool, with how old the devices shown are.
 */
final class TelemetryLines {
    private TelemetryLines() {
    }

    static String format(JsonNode status, long nowMillis) {
        Map<String, String> holders = new HashMap<>();
        for (JsonNode a : status.path("actors")) {
            if (a.path("state").asText().equals("DEAD")) continue;
            a.path("accelerator_ids").properties().forEach(e -> {
                for (JsonNode id : e.getValue()) {
                    holders.put(a.path("node_id").asText() + "/" + e.getKey() + "/" + id.asText(),
                            a.path("class_name").asText() + " " + a.path("actor_id").asText() + " (pid " + a.path("pid").asLong() + ")");
                }
            });
        }
        StringBuilder out = new StringBuilder();
        for (JsonNode n : status.path("nodes")) {
            JsonNode t = n.path("BeamTelemetry");
            if (!n.path("Alive").asBoolean() || t.isMissingNode()) continue;
            String ip = n.path("NodeManagerAddress").asText();
            for (JsonNode d : t.path("devices")) {
                String resource = t.path("resource").asText();
                out.append(' ').append(ip).append(' ').append(resource).append(' ').append(d.path("index").asText());
                if (d.hasNonNull("name")) out.append(' ').append(d.path("name").asText());
                out.append(": ").append(d.path("utilization_gpu").isNumber()
                                ? String.format("%.0f%%", d.path("utilization_gpu").asDouble()) : "utilization n/a")
                        .append(", ").append(d.path("memory_used_mib").asLong()).append('/')
                        .append(d.path("memory_total_mib").asLong()).append(" MiB, ");
                String holder = holders.get(n.path("NodeID").asText() + "/" + resource + "/" + d.path("index").asText());
                out.append(holder == null ? "free" : "held by " + holder).append('\n');
            }
            if (t.hasNonNull("problem")) {
                out.append(' ').append(ip).append(": ").append(t.path("problem").asText());
                long sampled = t.path("sampled_ms").asLong();
                out.append(sampled > 0 ? " (devices above as of " + Math.max(0, (nowMillis - sampled) / 1000) + " s ago)"
                        : " (no sample yet)").append('\n');
            }
        }
        return out.isEmpty() ? "" : "\nAccelerator telemetry (sampled every 5 s):\n" + out;
    }
}
