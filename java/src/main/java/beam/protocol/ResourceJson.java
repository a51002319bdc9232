package beam.protocol;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The JSON form of a resource map, {@code {"GPU": 1.0, "CPU": 0.5}}: in a create_actor's
 * options, a pg_create's bundles, a join, {@code --resources} and the views' rows. Here only
 * the shape is checked (an object of numbers); the domain's {@code cluster/Resources.of}
 * checks the amounts themselves (non-negative, within the resolution).
 */
public final class ResourceJson {
    private ResourceJson() {
    }

    /**
     * The amounts of {@code json} by name, in its order (empty for null or JSON null);
     * {@code what} names the map in the error of one that is no object or holds a non-number.
     */
    public static Map<String, Double> read(JsonNode json, String what) {
        Map<String, Double> out = new LinkedHashMap<>();
        if (json == null || json.isNull()) return out;
        if (!json.isObject()) throw new IllegalArgumentException(what + " must be a dict of resource name to amount");
        for (Map.Entry<String, JsonNode> e : json.properties()) {
            if (!e.getValue().isNumber()) {
                throw new IllegalArgumentException(what + ": amount of '" + e.getKey() + "' must be a number, got " + e.getValue());
            }
            out.put(e.getKey(), e.getValue().asDouble());
        }
        return out;
    }

    public static ObjectNode write(Map<String, Double> amounts) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        amounts.forEach(o::put);
        return o;
    }

    /** Writes the same object as {@link #write(Map)}, without building a tree. */
    public static void write(Map<String, Double> amounts, JsonGenerator g) throws IOException {
        g.writeStartObject();
        for (var e : amounts.entrySet()) g.writeNumberField(e.getKey(), e.getValue());
        g.writeEndObject();
    }
}
