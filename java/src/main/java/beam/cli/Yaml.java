package beam.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;
import java.util.regex.Pattern;

/** Block YAML of a JSON tree, as Ray's state CLI prints {@code --format yaml} and {@code ray get}. */
final class Yaml {
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_/][A-Za-z0-9_./:@ -]*");

    private Yaml() {
    }

    /** A YAML document ({@code ---} ... {@code ...}) of a list of rows. */
    static String document(JsonNode rows) {
        StringBuilder sb = new StringBuilder("---\n");
        write(sb, rows, 0);
        return sb.append("...\n").toString();
    }

    private static void write(StringBuilder sb, JsonNode v, int indent) {
        String pad = " ".repeat(indent);
        if (v.isArray()) {
            if (v.isEmpty()) {
                sb.append(pad).append("[]\n");
                return;
            }
            for (JsonNode item : v) {
                if (item.isContainerNode() && !item.isEmpty()) {
                    StringBuilder inner = new StringBuilder();
                    write(inner, item, indent + 2);
                    sb.append(pad).append("- ").append(inner.substring(indent + 2));
                } else {
                    sb.append(pad).append("- ").append(scalar(item)).append('\n');
                }
            }
        } else if (v.isObject()) {
            if (v.isEmpty()) {
                sb.append(pad).append("{}\n");
                return;
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                JsonNode value = e.getValue();
                sb.append(pad).append(key(e.getKey())).append(':');
                if (value.isContainerNode() && !value.isEmpty()) {
                    sb.append('\n');
                    write(sb, value, indent + 2);
                } else {
                    sb.append(' ').append(scalar(value)).append('\n');
                }
            }
        } else {
            sb.append(pad).append(scalar(v)).append('\n');
        }
    }

    private static String key(String k) {
        return PLAIN.matcher(k).matches() ? k : quote(k);
    }

    private static String scalar(JsonNode v) {
        if (v.isNull() || v.isMissingNode()) return "null";
        if (v.isArray()) return "[]";
        if (v.isObject()) return "{}";
        if (!v.isTextual()) return v.asText();
        String s = v.asText();
        boolean plain = PLAIN.matcher(s).matches() && !s.endsWith(" ")
                && !s.matches("(?i)true|false|null|yes|no|on|off|~|[-+]?([0-9][0-9_]*\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?") && !s.contains(": ");
        return plain ? s : quote(s);
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "''").replace("\n", " ") + "'";
    }
}
