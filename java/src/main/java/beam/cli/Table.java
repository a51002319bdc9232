package beam.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/** Plain aligned text tables for the CLI. */
final class Table {
    private static final int MAX_CELL = 60;

    private Table() {
    }

    static String render(List<String> columns, Iterable<JsonNode> rows) {
        List<List<String>> cells = new ArrayList<>();
        cells.add(columns.stream().map(String::toUpperCase).toList());
        for (JsonNode row : rows) {
            List<String> line = new ArrayList<>();
            for (String c : columns) line.add(cell(row.path(c)));
            cells.add(line);
        }
        int[] width = new int[columns.size()];
        for (List<String> line : cells) {
            for (int i = 0; i < line.size(); i++) width[i] = Math.max(width[i], line.get(i).length());
        }
        StringBuilder sb = new StringBuilder();
        for (List<String> line : cells) {
            for (int i = 0; i < line.size(); i++) {
                sb.append(i == line.size() - 1 ? line.get(i) : String.format("%-" + (width[i] + 2) + "s", line.get(i)));
            }
            sb.append('\n');
        }
        if (cells.size() == 1) sb.append("(none)\n");
        return sb.toString();
    }

    private static String cell(JsonNode v) {
        String s = v.isMissingNode() || v.isNull() ? "" : v.isValueNode() ? v.asText() : v.toString();
        return s.length() > MAX_CELL ? s.substring(0, MAX_CELL - 3) + "..." : s;
    }
}
