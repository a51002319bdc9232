package beam.dispatch;

import beam.cluster.ActorOptions;
import beam.cluster.LabelSelector;
import beam.cluster.NodeAffinity;
import beam.cluster.Resources;
import beam.cluster.RuntimeEnv;
import beam.protocol.ResourceJson;
import beam.protocol.Request.BadRequest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import beam.cluster.AcceleratorKind;
import beam.util.Ids;

/** Validates the {@code options} object of {@code create_actor} into {@link ActorOptions}, and {@code pg_create}'s bundles. */
final class OptionsParser {
    private OptionsParser() {
    }

    static ActorOptions parse(long rid, ObjectNode o) throws BadRequest {
        try {
            Resources request = resources(o.get("resources"), "resources");
            for (String reserved : List.of("CPU", "GPU")) {
                if (request.get(reserved) > 0) {
                    throw new IllegalArgumentException("Use the num_cpus and num_gpus options instead of specifying \""
                            + reserved + "\" as a custom resource");
                }
            }
            request.set("CPU", units(o, "num_cpus"));
            request.set("GPU", units(o, "num_gpus"));
            for (Map.Entry<String, Long> e : request.asMap().entrySet()) {
                AcceleratorKind kind = AcceleratorKind.forResource(e.getKey());
                String refused = kind == null ? null : kind.checkRequest(e.getValue());
                if (refused != null) throw new IllegalArgumentException(refused);
            }
            if (o.hasNonNull("memory")) request.set("memory", units(o, "memory"));
            String pg = o.hasNonNull("pg_id") ? o.get("pg_id").asText() : null;
            if (pg != null && !Ids.isHex(pg, 36)) throw new IllegalArgumentException("pg_id must be 36 hex characters");
            int bundle = o.path("bundle_index").asInt(-1);
            Map<String, String> env = new LinkedHashMap<>();
            JsonNode ev = o.get("env_vars");
            if (ev != null && !ev.isNull()) {
                if (!ev.isObject()) throw new IllegalArgumentException("env_vars must be a dict of str to str");
                for (Iterator<Map.Entry<String, JsonNode>> it = ev.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = it.next();
                    if (!e.getValue().isTextual()) {
                        throw new IllegalArgumentException("env_vars['" + e.getKey() + "'] must be a string");
                    }
                    env.put(e.getKey(), e.getValue().asText());
                }
            }
            RuntimeEnv runtimeEnv = o.get("runtime_env") instanceof ObjectNode re ? new RuntimeEnv(re.toString()) : RuntimeEnv.NONE;
            int maxConcurrency = o.path("max_concurrency").asInt(1);
            if (maxConcurrency < 1) throw new IllegalArgumentException("max_concurrency must be >= 1");
            List<String> methods = new ArrayList<>();
            for (JsonNode m : o.path("methods")) methods.add(m.asText());
            return new ActorOptions(request, pg, bundle, env, runtimeEnv, maxConcurrency,
                    o.path("is_async").asBoolean(false), "detached".equals(o.path("lifetime").asText(null)), methods,
                    affinity(o.get("node_affinity")), o.path("spread").asBoolean(false),
                    selector(o.get("label_selector"), "label_selector").and(expressions(o.path("node_labels"), "hard")),
                    expressions(o.path("node_labels"), "soft"));
        } catch (IllegalArgumentException e) {
            throw new BadRequest(rid, "create_actor: " + e.getMessage());
        }
    }

    /** A label selector ({@code {key: "value" | "!value" | "in(a,b)" | "!in(a,b)"}}), with Ray's words for a bad one. */
    private static LabelSelector selector(JsonNode s, String what) {
        if (s == null || s.isNull()) return LabelSelector.NONE;
        if (!s.isObject()) throw new IllegalArgumentException(what + " must be a dict of str to str, got " + s);
        Map<String, String> map = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = s.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!e.getValue().isTextual()) {
                throw new IllegalArgumentException(what + "['" + e.getKey() + "'] must be a string, got " + e.getValue());
            }
            map.put(e.getKey(), e.getValue().asText());
        }
        return LabelSelector.parse(map);
    }

    /**
     * One side ({@code hard} or {@code soft}) of NodeLabelSchedulingStrategy: a list of
     * {@code {"key", "op": "in" | "not_in" | "exists" | "does_not_exist", "values"}}.
     */
    private static LabelSelector expressions(JsonNode strategy, String side) {
        List<LabelSelector.Condition> out = new ArrayList<>();
        for (JsonNode e : strategy.path(side)) {
            String key = e.path("key").asText("");
            List<String> values = new ArrayList<>();
            for (JsonNode v : e.path("values")) values.add(v.asText());
            out.add(switch (e.path("op").asText("")) {
                case "in" -> LabelSelector.in(key, false, values);
                case "not_in" -> LabelSelector.in(key, true, values);
                case "exists" -> LabelSelector.exists(key, false);
                case "does_not_exist" -> LabelSelector.exists(key, true);
                default -> throw new IllegalArgumentException("node_labels." + side + ": op must be in, not_in, exists or "
                        + "does_not_exist, got " + e.path("op"));
            });
        }
        return new LabelSelector(out);
    }

    /**
     * {@code pg_create}'s {@code bundle_label_selector}: one selector per bundle, or none at all
     * (Ray's words for a list of another length or a bad selector).
     */
    static List<LabelSelector> bundleSelectors(long rid, JsonNode list, int bundles) throws BadRequest {
        if (list == null || list.isNull() || list.isArray() && list.isEmpty()) return List.of();
        try {
            if (!list.isArray() || list.size() != bundles) {
                throw new IllegalArgumentException("Invalid bundle label selector " + list + ". The length of "
                        + "`bundle_label_selector` should equal the length of `bundles`.");
            }
            List<LabelSelector> out = new ArrayList<>();
            for (JsonNode s : list) {
                try {
                    out.add(selector(s, "bundle_label_selector[" + out.size() + "]"));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("Invalid label selector provided in bundle_label_selector list. "
                            + "Detailed error: '" + e.getMessage() + "'");
                }
            }
            return out;
        } catch (IllegalArgumentException e) {
            throw new BadRequest(rid, "pg_create: " + e.getMessage());
        }
    }

    private static NodeAffinity affinity(JsonNode a) {
        if (a == null || a.isNull()) return null;
        String nodeId = a.path("node_id").asText("");
        if (!Ids.isHex(nodeId, 56)) {
            throw new IllegalArgumentException("node_affinity.node_id must be a node id of 56 hex characters, got '"
                    + nodeId + "' (ray.nodes() lists the node ids)");
        }
        return new NodeAffinity(nodeId, a.path("soft").asBoolean(false));
    }

    private static long units(ObjectNode o, String name) {
        JsonNode v = o.get(name);
        if (v == null || v.isNull()) return 0;
        if (!v.isNumber() || v.asDouble() < 0) throw new IllegalArgumentException(name + " must be a number >= 0, got " + v);
        return Resources.toUnits(v.asDouble());
    }

    /** A resource map of a request: its shape read off the wire, its amounts checked by the domain. */
    private static Resources resources(JsonNode json, String what) {
        return Resources.of(ResourceJson.read(json, what), what);
    }

    /** The {@code bundles} of {@code pg_create}, each a resource map. */
    static List<Resources> bundles(long rid, JsonNode list) throws BadRequest {
        List<Resources> out = new ArrayList<>();
        int i = 0;
        for (JsonNode b : list) {
            try {
                out.add(resources(b, "bundle " + i));
            } catch (IllegalArgumentException e) {
                throw new BadRequest(rid, "pg_create: " + e.getMessage());
            }
            i++;
        }
        return out;
    }
}
