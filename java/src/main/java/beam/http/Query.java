package beam.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Typed query parameters that name the parameter and the allowed values in every 400. */
final class Query {
    private Query() {
    }

    static void check(Map<String, String> q) throws Route.HttpError {
        if (q.containsKey("") && q.get("") == null) {
            throw new Route.HttpError(400, "malformed or oversized query string (at most " + HttpFace.MAX_QUERY_CHARS
                    + " characters of name=value pairs, percent-encoded)");
        }
    }

    static String text(Map<String, String> q, String name, String dflt) throws Route.HttpError {
        check(q);
        String v = q.get(name);
        return v == null || v.isEmpty() ? dflt : v;
    }

    static int integer(Map<String, String> q, String name, int dflt, int min, int max) throws Route.HttpError {
        String v = text(q, name, null);
        if (v == null) return dflt;
        try {
            int n = Integer.parseInt(v.trim());
            if (n < min || n > max) throw new NumberFormatException();
            return n;
        } catch (NumberFormatException e) {
            throw new Route.HttpError(400, "query parameter '" + name + "' must be an integer in " + min + ".." + max
                    + ", got '" + HttpFace.clip(v) + "'");
        }
    }

    /** Every value of a parameter that may repeat ({@link HttpFace#query} keeps the repeats as name#1, name#2...). */
    static List<String> all(Map<String, String> q, String name) throws Route.HttpError {
        check(q);
        List<String> out = new ArrayList<>();
        String v = q.get(name);
        for (int i = 1; v != null; i++) {
            out.add(v);
            v = q.get(name + "#" + i);
        }
        return out;
    }

    /** Ray's bool parameters: {@code true/True/1} or {@code false/False/0}. */
    static boolean bool(Map<String, String> q, String name, boolean dflt) throws Route.HttpError {
        String v = text(q, name, null);
        if (v == null) return dflt;
        return switch (v) {
            case "true", "True", "1" -> true;
            case "false", "False", "0" -> false;
            default -> throw new Route.HttpError(400, "query parameter '" + name + "' must be true or false, got '"
                    + HttpFace.clip(v) + "'");
        };
    }
}
