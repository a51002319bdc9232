package beam.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One node's devices of one accelerator resource: which kind they are, their ids as the
 * node names them (the entries of a visibility variable set on `ray start`, else 0..n-1),
 * the model where detection saw it (e.g. "H200"; null when declared or unknown), and where
 * the count came from: {@link #DECLARED} on `ray start`, the {@link #VISIBLE} variable, or
 * {@link #DETECTED} devices.
 */
public record NodeAccelerator(AcceleratorKind kind, List<String> ids, String type, String source) {
    public static final String DECLARED = "declared";
    public static final String VISIBLE = "visible";
    public static final String DETECTED = "detected";

    public NodeAccelerator {
        ids = List.copyOf(ids);
    }

    /** The wire and view form: {"kind", "vendor", "type", "ids", "visible_var", "source"}. */
    public ObjectNode toJson() {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("kind", kind.name());
        o.put("vendor", kind.vendor);
        o.put("type", type);
        o.put("visible_var", kind.visibleVar);
        o.put("source", source);
        ids.forEach(o.putArray("ids")::add);
        return o;
    }

    public static ObjectNode toJson(Map<String, NodeAccelerator> byResource) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        byResource.forEach((r, a) -> o.set(r, a.toJson()));
        return o;
    }

    /**
     * Parses what a joining node reported, keyed by resource; refuses a kind beam does not
     * know or one filed under another kind's resource.
     */
    public static Map<String, NodeAccelerator> fromJson(JsonNode json) {
        Map<String, NodeAccelerator> out = new LinkedHashMap<>();
        if (json == null || json.isNull() || json.isMissingNode()) return out;
        if (!json.isObject()) throw new IllegalArgumentException("accelerators must be an object of resource to devices");
        json.fields().forEachRemaining(e -> {
            AcceleratorKind kind;
            try {
                kind = AcceleratorKind.valueOf(e.getValue().path("kind").asText());
            } catch (IllegalArgumentException bad) {
                throw new IllegalArgumentException("accelerators['" + e.getKey() + "']: unknown kind '"
                        + e.getValue().path("kind").asText() + "'");
            }
            if (!kind.resource.equals(e.getKey())) {
                throw new IllegalArgumentException("accelerators['" + e.getKey() + "']: kind " + kind
                        + " counts in " + kind.resource);
            }
            List<String> ids = new ArrayList<>();
            e.getValue().path("ids").forEach(i -> ids.add(i.asText()));
            out.put(e.getKey(), new NodeAccelerator(kind, ids, e.getValue().path("type").asText(null),
                    e.getValue().path("source").asText(DECLARED)));
        });
        return out;
    }

    /** Only the GPU ids of a node: what `GpuIds` and the older views show. */
    public static List<String> gpuIds(Map<String, NodeAccelerator> byResource) {
        NodeAccelerator gpu = byResource.get("GPU");
        return gpu == null ? List.of() : gpu.ids;
    }
}
