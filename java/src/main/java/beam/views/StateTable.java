package beam.views;

import beam.cluster.ClusterSnapshot;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One table of the state API ({@code ray list <name>}): its columns in Ray's order, with
 * Ray's types and flags, the records of a snapshot it lists, and how one record becomes a
 * row. The query engine ({@link StateQuery}) works on any table registered with it.
 *
 * @param name      Ray's resource name with underscores ({@code placement_groups})
 * @param idColumn  the column {@code ray get <name> ID} matches
 * @param columns   every column of a row, in the order Ray prints them
 * @param records   the records of one snapshot, in listing order
 * @param row       one record's row (every column, the detail ones too)
 */
public record StateTable<T>(String name, String idColumn, List<Column> columns,
                            Function<ClusterSnapshot, List<T>> records, Function<T, ObjectNode> row) {
    /** How a filter value is read for a column, as Ray coerces it. */
    public enum Type { TEXT, INT, FLOAT, BOOL, OTHER }

    /**
     * @param filterable  Ray accepts it in {@code --filter}
     * @param detail      only with {@code --detail}
     * @param beam        beam's own column, not Ray's: shown only with {@code --detail}
     */
    public record Column(String name, Type type, boolean filterable, boolean detail, boolean beam) {
    }

    public StateTable {
        columns = List.copyOf(columns);
    }

    public Map<String, Column> byName() {
        Map<String, Column> out = new LinkedHashMap<>();
        for (Column c : columns) out.put(c.name(), c);
        return out;
    }

    /** Column builders, so a table reads as Ray's schema does. */
    public static Column base(String name, Type type, boolean filterable) {
        return new Column(name, type, filterable, false, false);
    }

    public static Column detail(String name, Type type, boolean filterable) {
        return new Column(name, type, filterable, true, false);
    }

    public static Column beam(String name) {
        return new Column(name, Type.OTHER, false, true, true);
    }
}
