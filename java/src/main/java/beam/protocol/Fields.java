package beam.protocol;

import beam.protocol.Request.BadRequest;
import beam.util.Ids;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Typed access to a frame header's fields, for client requests ({@link Request}) and link
 * messages ({@link LinkCodec}) alike: every error names the op and the field.
 */
final class Fields {
    private final ObjectNode h;
    private final String op;

    Fields(ObjectNode h) {
        this(h, h.get("op").asText());
    }

    /** Fields of an object inside a header; errors name it as {@code where}. */
    Fields(ObjectNode h, String where) {
        this.h = h;
        this.op = where;
    }

    long ridOrMinus() {
        JsonNode r = h.get("rid");
        return r != null && r.isIntegralNumber() ? r.asLong() : -1;
    }

    long rid() throws BadRequest {
        JsonNode r = h.get("rid");
        if (r == null || !r.isIntegralNumber()) throw bad("field 'rid' (integer) is required");
        return r.asLong();
    }

    String text(String name) throws BadRequest {
        JsonNode v = h.get(name);
        if (v == null || !v.isTextual()) throw bad("field '" + name + "' (string) is required");
        return v.asText();
    }

    String optText(String name) throws BadRequest {
        JsonNode v = h.get(name);
        if (v == null || v.isNull()) return null;
        if (!v.isTextual()) throw bad("field '" + name + "' must be a string");
        return v.asText();
    }

    /** An optional call label: printable ASCII, at most {@link beam.util.CallLabel#MAX_CHARS} characters. */
    String label(String name) throws BadRequest {
        String v = optText(name);
        if (v != null && !beam.util.CallLabel.isValid(v)) {
            throw bad("field '" + name + "' must be 1 to " + beam.util.CallLabel.MAX_CHARS
                    + " printable ASCII characters (the shim sends only such first arguments)");
        }
        return v;
    }

    String hex(String name, int chars) throws BadRequest {
        String v = text(name);
        if (!Ids.isHex(v, chars)) throw bad("field '" + name + "' must be " + chars + " hex characters");
        return v;
    }

    int integer(String name) throws BadRequest {
        return (int) longInteger(name);
    }

    long longInteger(String name) throws BadRequest {
        JsonNode v = h.get(name);
        if (v == null || !v.isIntegralNumber()) throw bad("field '" + name + "' (integer) is required");
        return v.asLong();
    }

    long optLong(String name, long dflt) throws BadRequest {
        JsonNode v = h.get(name);
        if (v == null || v.isNull()) return dflt;
        if (!v.isIntegralNumber()) throw bad("field '" + name + "' must be an integer");
        return v.asLong();
    }

    boolean optBool(String name, boolean dflt) throws BadRequest {
        JsonNode v = h.get(name);
        if (v == null || v.isNull()) return dflt;
        if (!v.isBoolean()) throw bad("field '" + name + "' must be true or false");
        return v.asBoolean();
    }

    ObjectNode object(String name) throws BadRequest {
        JsonNode v = h.get(name);
        if (v == null || v.isNull()) return h.objectNode();
        if (!(v instanceof ObjectNode o)) throw bad("field '" + name + "' must be an object");
        return o;
    }

    /** An object that may be absent (null then). */
    ObjectNode optObject(String name) throws BadRequest {
        JsonNode v = h.get(name);
        return v == null || v.isNull() ? null : object(name);
    }

    JsonNode array(String name) throws BadRequest {
        JsonNode v = h.get(name);
        if (v == null || !v.isArray()) throw bad("field '" + name + "' (list) is required");
        return v;
    }

    List<String> textList(String name) throws BadRequest {
        return textList(h.get(name), name);
    }

    /** An object of strings ({@code env_vars}); empty when absent. */
    Map<String, String> textMap(String name) throws BadRequest {
        Map<String, String> out = new LinkedHashMap<>();
        for (var e : object(name).properties()) {
            if (!e.getValue().isTextual()) throw bad("field '" + name + "' must map names to strings");
            out.put(e.getKey(), e.getValue().asText());
        }
        return out;
    }

    /** An object of string lists ({@code accelerator_ids}); empty when absent. */
    Map<String, List<String>> textListMap(String name) throws BadRequest {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (var e : object(name).properties()) out.put(e.getKey(), textList(e.getValue(), name + "." + e.getKey()));
        return out;
    }

    private List<String> textList(JsonNode v, String name) throws BadRequest {
        List<String> out = new ArrayList<>();
        if (v == null || v.isNull()) return out;
        if (!v.isArray()) throw bad("field '" + name + "' must be a list of strings");
        for (JsonNode e : v) {
            if (!e.isTextual()) throw bad("field '" + name + "' must be a list of strings");
            out.add(e.asText());
        }
        return out;
    }

    BadRequest bad(String message) {
        return new BadRequest(ridOrMinus(), op + ": " + message);
    }
}
