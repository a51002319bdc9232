package beam.views;

import beam.cluster.ClusterSnapshot;
import beam.views.StateTable.Column;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * One state query, as Ray's {@code ListApiOptions}: a table, filters ANDed together, a limit
 * and whether detail columns are wanted. {@link #run} answers it over one snapshot with Ray's
 * {@code ListApiResponse}: the rows kept (at most {@code limit}), how many matched
 * ({@code num_filtered}) and how many the table holds ({@code total}). Filter values are
 * coerced to the column's type as Ray does (ints, floats, {@code true/false/1/0} for bools);
 * text compares case-insensitively. The snapshot under it holds one small record per actor
 * (taken under the cluster's lock, which a query never holds); rows are built from those records
 * one at a time and only the kept ones are held, so a small page of a huge table builds a
 * small page of JSON.
 */
public record StateQuery(String table, List<Filter> filters, int limit, boolean detail) {
    public static final int DEFAULT_LIMIT = 100;
    /** Ray's RAY_MAX_LIMIT_FROM_API_SERVER. */
    public static final int MAX_LIMIT = 10_000;
    public static final int MAX_FILTERS = 32;
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    /** Bad input, with what was wrong and the valid choices. */
    public static final class Invalid extends IllegalArgumentException {
        public Invalid(String message) {
            super(message);
        }
    }

    public record Filter(String key, String predicate, String value) {
    }

    public StateQuery {
        if (limit < 1) throw new Invalid("Given limit " + limit + " is not positive: give --limit 1.." + MAX_LIMIT + ".");
        if (limit > MAX_LIMIT) {
            throw new Invalid("Given limit " + limit + " exceeds the supported limit " + MAX_LIMIT + ". Use a lower limit.");
        }
        if (filters.size() > MAX_FILTERS) throw new Invalid("At most " + MAX_FILTERS + " filters, got " + filters.size() + ".");
        filters = List.copyOf(filters);
    }

    /** Filters from their wire form, {@code [[key, predicate, value], ...]} (value text, number or bool). */
    public static List<Filter> filters(JsonNode json) {
        List<Filter> out = new ArrayList<>();
        if (json == null || json.isNull() || json.isMissingNode()) return out;
        if (!json.isArray()) throw new Invalid("filters must be a list of [key, predicate, value].");
        if (json.size() > MAX_FILTERS) throw new Invalid("At most " + MAX_FILTERS + " filters, got " + json.size() + ".");
        for (JsonNode f : json) {
            if (!f.isArray() || f.size() != 3 || !f.get(0).isTextual() || !f.get(1).isTextual() || !f.get(2).isValueNode()) {
                throw new Invalid("Each filter must be [key, predicate, value], got " + clip(f.toString()) + ".");
            }
            out.add(new Filter(f.get(0).asText(), f.get(1).asText(), f.get(2).asText()));
        }
        return out;
    }

    /** Ray's ListApiResponse for this query over one snapshot. */
    public ObjectNode run(StateTables tables, ClusterSnapshot snapshot) {
        return scan(tables.table(table), snapshot);
    }

    private <T> ObjectNode scan(StateTable<T> t, ClusterSnapshot snapshot) {
        List<Check> checks = checks(t);
        List<T> records = t.records().apply(snapshot);
        ArrayNode page = F.arrayNode();
        int matched = 0;
        for (T record : records) {
            if (checks.isEmpty() && page.size() == limit) {
                matched = records.size(); // nothing filters: every record matches, and the page is full
                break;
            }
            ObjectNode row = t.row(record);
            if (!matchesAll(row, checks)) continue;
            matched++;
            if (page.size() < limit) page.add(project(t, row));
        }
        ObjectNode r = F.objectNode();
        r.put("total", records.size());
        r.put("num_after_truncation", records.size());
        r.put("num_filtered", matched);
        r.set("result", page);
        r.put("partial_failure_warning", "");
        r.putArray("warnings");
        return r;
    }

    /** Every row of the table this query matches (no limit, no projection): the summaries' input. */
    <T> List<ObjectNode> allMatching(StateTable<T> t, ClusterSnapshot snapshot) {
        List<Check> checks = checks(t);
        List<ObjectNode> out = new ArrayList<>();
        for (T record : t.records().apply(snapshot)) {
            ObjectNode row = t.row(record);
            if (matchesAll(row, checks)) out.add(row);
        }
        return out;
    }

    private ObjectNode project(StateTable<?> t, ObjectNode row) {
        if (detail) return row;
        ObjectNode out = F.objectNode();
        for (Column<?> c : t.columns()) {
            if (!c.detail() && row.has(c.name())) out.set(c.name(), row.get(c.name()));
        }
        return out;
    }

    /** A filter checked against the table's schema once, its value already of the column's type. */
    private record Check(String key, boolean equal, StateTable.Type type, String text, long integer, double real,
                         boolean bool) {
    }

    private <T> List<Check> checks(StateTable<T> t) {
        Map<String, Column<T>> columns = t.byName();
        List<Check> out = new ArrayList<>();
        for (Filter f : filters) {
            String key = f.key().toLowerCase(java.util.Locale.ROOT);
            Column<T> c = columns.get(key);
            if (c == null) {
                throw new Invalid("Invalid filter key '" + clip(f.key()) + "' for resource '" + t.name() + "'. "
                        + "Available filter keys are: " + String.join(", ", rayColumns(t)));
            }
            if (!c.filterable()) {
                throw new Invalid("The given filter column " + key + " is not supported. Enter filters with "
                        + "--filter key=value or --filter key!=value Supported filter columns: "
                        + new TreeSet<>(t.columns().stream().filter(Column::filterable).map(Column::name).toList()));
            }
            if (!f.predicate().equals("=") && !f.predicate().equals("!=")) {
                throw new Invalid("Unsupported filter predicate " + clip(f.predicate()) + " is given. "
                        + "Available predicates: =, !=.");
            }
            out.add(check(key, f.predicate().equals("="), c.type(), f.value()));
        }
        return out;
    }

    private static Check check(String key, boolean equal, StateTable.Type type, String v) {
        String bad = "Invalid filter `--filter " + key + " " + clip(v) + "` for a ";
        return switch (type) {
            case INT -> {
                try {
                    yield new Check(key, equal, type, v, Long.parseLong(v.trim()), 0, false);
                } catch (NumberFormatException e) {
                    throw new Invalid(bad + "int type column. Please provide an integer filter `--filter " + key + " [int]`");
                }
            }
            case FLOAT -> {
                try {
                    yield new Check(key, equal, type, v, 0, Double.parseDouble(v.trim()), false);
                } catch (NumberFormatException e) {
                    throw new Invalid(bad + "float type column. Please provide a float filter `--filter " + key + " [float]`");
                }
            }
            case BOOL -> switch (v) {
                case "True", "true", "1" -> new Check(key, equal, type, v, 0, 0, true);
                case "False", "false", "0" -> new Check(key, equal, type, v, 0, 0, false);
                default -> throw new Invalid(bad + "boolean type column. Please provide `--filter " + key
                        + " [True|true|1]` for True or `--filter " + key + " [False|false|0]` for False.");
            };
            default -> new Check(key, equal, type, v, 0, 0, false);
        };
    }

    private static boolean matchesAll(ObjectNode row, List<Check> checks) {
        for (Check c : checks) {
            JsonNode v = row.get(c.key());
            if (v == null) return false; // Ray: a row without the column never matches
            boolean same = !v.isNull() && switch (c.type()) {
                case INT -> v.isNumber() && v.asLong() == c.integer();
                case FLOAT -> v.isNumber() && v.asDouble() == c.real();
                case BOOL -> v.isBoolean() && v.asBoolean() == c.bool();
                case TEXT -> v.asText().equalsIgnoreCase(c.text());
                case OTHER -> v.asText().equals(c.text());
            };
            if (same != c.equal()) return false;
        }
        return true;
    }

    private static List<String> rayColumns(StateTable<?> t) {
        return t.columns().stream().filter(c -> !c.beam()).map(Column::name).toList();
    }

    static String clip(String s) {
        String printable = s.replaceAll("[^\\x20-\\x7e]", "?");
        return printable.length() > 80 ? printable.substring(0, 80) + "..." : printable;
    }
}
