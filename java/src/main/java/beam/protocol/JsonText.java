package beam.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;

/** The one reading of "a JSON object of strings" (labels on `ray start` and in a join, which are Ray's). */
public final class JsonText {
    private JsonText() {
    }

    /**
     * The object's string fields in order. Strict: anything but an object, or a value that is
     * not a string, is an {@link IllegalArgumentException} naming {@code what} (as Ray words
     * it for labels). Lenient: those are left out (an empty map for a non-object), for a
     * reader whose caller checks what it got.
     */
    public static Map<String, String> strings(JsonNode node, String what, boolean strict) {
        Map<String, String> out = new LinkedHashMap<>();
        if (node == null || !node.isObject()) {
            if (strict) throw new IllegalArgumentException(what + " is not a JSON object");
            return out;
        }
        for (var e : node.properties()) {
            if (e.getValue().isTextual()) out.put(e.getKey(), e.getValue().asText());
            else if (strict) {
                throw new IllegalArgumentException("The value of the \"" + e.getKey() + "\" in " + what + " is not string type");
            }
        }
        return out;
    }
}
