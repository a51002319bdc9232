package beam.views;

import beam.cluster.ClusterSnapshot;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One table of the state API ({@code ray list <name>}): its columns in Ray's order, each with
 * Ray's type and flags and the function that reads its value from one record, and the records
 * of a snapshot it lists. A row is built from the columns alone ({@link #row}), so a column
 * cannot be declared without a value nor a value given without its column. The query engine
 * ({@link StateQuery}) works on any table registered with it ({@link StateTables}).
 *
 * @param name      Ray's resource name with underscores ({@code placement_groups})
 * @param idColumn  the column {@code ray get <name> ID} matches
 * @param columns   every column of a row, in the order Ray prints them
 * @param records   the records of one snapshot, in listing order
 */
public record StateTable<T>(String name, String idColumn, List<Column<T>> columns,
                            Function<ClusterSnapshot, List<T>> records) {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    /** How a filter value is read for a column, as Ray coerces it. */
    public enum Type { TEXT, INT, FLOAT, BOOL, OTHER }

    /** Where a column shows, as Ray's {@code state_column(filterable=, detail=)} says, or beam's own. */
    public enum Shown {
        /** In every listing; {@code --filter} accepts it. */
        BASE_FILTERABLE(true, false, false),
        /** In every listing, not filterable. */
        BASE(false, false, false),
        /** Only with {@code --detail}; {@code --filter} accepts it. */
        DETAIL_FILTERABLE(true, true, false),
        /** Only with {@code --detail}, not filterable. */
        DETAIL(false, true, false),
        /** beam's own column, not Ray's: only with {@code --detail}, not filterable. */
        BEAM(false, true, true);

        final boolean filterable;
        final boolean detail;
        final boolean beam;

        Shown(boolean filterable, boolean detail, boolean beam) {
            this.filterable = filterable;
            this.detail = detail;
            this.beam = beam;
        }
    }

    /**
     * One column and how a record gives its value (JSON null for a null value).
     *
     * @param filterable  Ray accepts it in {@code --filter}
     * @param detail      only with {@code --detail}
     * @param beam        beam's own column, not Ray's: shown only with {@code --detail}
     */
    public record Column<T>(String name, Type type, boolean filterable, boolean detail, boolean beam,
                            Function<T, JsonNode> value) {
    }

    public StateTable {
        columns = List.copyOf(columns);
        Map<String, Column<T>> seen = new LinkedHashMap<>();
        for (Column<T> c : columns) {
            if (seen.put(c.name(), c) != null) throw new IllegalArgumentException("table " + name + " declares " + c.name() + " twice");
        }
        if (!seen.containsKey(idColumn)) throw new IllegalArgumentException("table " + name + " has no id column " + idColumn);
    }

    /** One record's row: every declared column (the detail ones too), in declared order. */
    public ObjectNode row(T record) {
        ObjectNode r = F.objectNode();
        for (Column<T> c : columns) {
            JsonNode v = c.value().apply(record);
            r.set(c.name(), v == null ? F.nullNode() : v);
        }
        return r;
    }

    public Map<String, Column<T>> byName() {
        Map<String, Column<T>> out = new LinkedHashMap<>();
        for (Column<T> c : columns) out.put(c.name(), c);
        return out;
    }

    /** Declares a table's columns one at a time, each with the type its value has, so a table reads as Ray's schema does. */
    public static final class Builder<T> {
        private final String name;
        private final String idColumn;
        private final Function<ClusterSnapshot, List<T>> records;
        private final List<Column<T>> columns = new ArrayList<>();

        public Builder(String name, String idColumn, Function<ClusterSnapshot, List<T>> records) {
            this.name = name;
            this.idColumn = idColumn;
            this.records = records;
        }

        /** A text column (filters compare case-insensitively). */
        public Builder<T> text(String column, Shown shown, Function<T, String> value) {
            return add(column, Type.TEXT, shown, r -> {
                String v = value.apply(r);
                return v == null ? F.nullNode() : F.textNode(v);
            });
        }

        /** An integer column. */
        public Builder<T> integer(String column, Shown shown, Function<T, Long> value) {
            return add(column, Type.INT, shown, r -> {
                Long v = value.apply(r);
                return v == null ? F.nullNode() : F.numberNode(v);
            });
        }

        /** A boolean column. */
        public Builder<T> bool(String column, Shown shown, Function<T, Boolean> value) {
            return add(column, Type.BOOL, shown, r -> {
                Boolean v = value.apply(r);
                return v == null ? F.nullNode() : F.booleanNode(v);
            });
        }

        /** A column whose value is a list, a map or anything else Ray does not filter on. */
        public Builder<T> json(String column, Shown shown, Function<T, JsonNode> value) {
            return add(column, Type.OTHER, shown, value);
        }

        private Builder<T> add(String column, Type type, Shown shown, Function<T, JsonNode> value) {
            columns.add(new Column<>(column, type, shown.filterable, shown.detail, shown.beam, value));
            return this;
        }

        public StateTable<T> build() {
            return new StateTable<>(name, idColumn, columns, records);
        }
    }
}
