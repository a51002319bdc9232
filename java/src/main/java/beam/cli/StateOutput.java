package beam.cli;

import beam.codec.FrameCodec;
import beam.protocol.Request;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What {@code ray list}, {@code ray get} and {@code ray summary} share: Ray's
 * {@code --filter key=value} parsing, the {@code state_list} request, and Ray's output
 * layouts (the table with its Stats header, YAML, JSON).
 */
final class StateOutput {
    static final List<String> FORMATS = List.of("default", "json", "yaml", "table");

    private StateOutput() {
    }

    /** Ray's {@code key=value} / {@code key!=value}, split at the first predicate, with Ray's words when neither is there. */
    static ArrayNode filters(List<String> given) {
        ArrayNode out = JsonNodeFactory.instance.arrayNode();
        for (String f : given) {
            int eq = f.indexOf('=');
            int ne = f.indexOf("!=");
            if (eq < 0) {
                throw new IllegalArgumentException("The format of a given filter " + f + " is invalid: Cannot find the "
                        + "predicate. Please provide key=val or key!=val format string.");
            }
            boolean not = ne >= 0 && ne + 1 == eq;
            String key = f.substring(0, not ? ne : eq);
            String value = f.substring(eq + 1);
            if (key.isEmpty() || value.isEmpty()) {
                throw new IllegalArgumentException("The format of a given filter " + f + " is invalid: Cannot identify key "
                        + key + " or value, " + value + ". Please provide key=val or key!=val format string.");
            }
            ArrayNode triple = out.addArray();
            triple.add(key).add(not ? "!=" : "=").add(value);
        }
        return out;
    }

    /** The daemon's ListApiResponse for one query, or null after printing why there is none. */
    static ObjectNode list(LocalDaemon daemon, beam.config.Environment env, String command, String table, ArrayNode filters,
                           long limit, boolean detail, String id) throws IOException {
        return daemon.ask(env, command, rid -> new Request.StateList(rid, table.replace('-', '_'), filters, limit, detail, id));
    }

    /** Ray's table layout: the dated banner, the count, then the rows under upper-case headers. */
    static String table(ArrayNode rows) {
        Set<String> columns = new LinkedHashSet<>();
        for (JsonNode r : rows) r.fieldNames().forEachRemaining(columns::add);
        List<String> withIndex = new ArrayList<>();
        withIndex.add("");
        withIndex.addAll(columns);
        ArrayNode indexed = JsonNodeFactory.instance.arrayNode();
        int i = 0;
        for (JsonNode r : rows) {
            ObjectNode o = indexed.addObject();
            o.put("", i++);
            o.setAll((ObjectNode) r);
        }
        return "\n======== List: " + LocalDateTime.now() + " ========\nStats:\n------------------------------\nTotal: "
                + rows.size() + "\n\nTable:\n------------------------------\n" + Table.render(withIndex, indexed) + "\n";
    }

    static String render(ArrayNode rows, String format) throws IOException {
        return switch (format) {
            case "json" -> FrameCodec.json().writeValueAsString(rows) + "\n";
            case "yaml" -> Yaml.document(rows);
            default -> table(rows);
        };
    }

    static String pretty(JsonNode v) throws IOException {
        return FrameCodec.json().writerWithDefaultPrettyPrinter().writeValueAsString(v) + "\n";
    }
}
