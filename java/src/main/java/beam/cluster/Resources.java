package beam.cluster;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Collections;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * A bag of named resource amounts in fixed-point units of 1/10,000 (Ray's resolution), so
 * fractional requests such as 0.001 or 0.25 add and subtract exactly: no float drift after
 * any number of allocate/free cycles. Mutable; owned by whoever holds the cluster lock.
 */
public final class Resources {
    public static final long UNIT = 10_000;

    private final TreeMap<String, Long> units = new TreeMap<>();

    public static long toUnits(double amount) {
        return Math.round(amount * UNIT);
    }

    public static double toAmount(long units) {
        return units / (double) UNIT;
    }

    /** Parses {@code {"GPU": 1, "CPU": 0.5}}; rejects non-numbers and negative amounts. */
    public static Resources fromJson(JsonNode json, String what) {
        Resources r = new Resources();
        if (json == null || json.isNull()) return r;
        if (!json.isObject()) throw new IllegalArgumentException(what + " must be a dict of resource name to amount");
        for (Iterator<Map.Entry<String, JsonNode>> it = json.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!e.getValue().isNumber()) {
                throw new IllegalArgumentException(what + ": amount of '" + e.getKey() + "' must be a number, got " + e.getValue());
            }
            double v = e.getValue().asDouble();
            if (v < 0 || Double.isNaN(v) || Double.isInfinite(v)) {
                throw new IllegalArgumentException(what + ": amount of '" + e.getKey() + "' must be non-negative (>= 0), got " + v);
            }
            long u = toUnits(v);
            if (v > 0 && u == 0) {
                throw new IllegalArgumentException(what + ": amount of '" + e.getKey() + "' (" + v
                        + ") is below the resolution of 0.0001");
            }
            if (u > 0) r.units.put(e.getKey(), u);
        }
        return r;
    }

    public Resources set(String name, long amountUnits) {
        if (amountUnits == 0) units.remove(name);
        else units.put(name, amountUnits);
        return this;
    }

    public long get(String name) {
        return units.getOrDefault(name, 0L);
    }

    public Map<String, Long> asMap() {
        return Collections.unmodifiableMap(units);
    }

    public boolean isEmpty() {
        return units.isEmpty();
    }

    public Resources copy() {
        Resources r = new Resources();
        r.units.putAll(units);
        return r;
    }

    /** True when every amount in {@code need} is available here. */
    public boolean fits(Resources need) {
        for (Map.Entry<String, Long> e : need.units.entrySet()) {
            if (get(e.getKey()) < e.getValue()) return false;
        }
        return true;
    }

    public void subtract(Resources other) {
        for (Map.Entry<String, Long> e : other.units.entrySet()) {
            long left = get(e.getKey()) - e.getValue();
            if (left < 0) throw new IllegalStateException("resource " + e.getKey() + " would go negative");
            units.put(e.getKey(), left);
        }
    }

    public void add(Resources other) {
        for (Map.Entry<String, Long> e : other.units.entrySet()) {
            units.merge(e.getKey(), e.getValue(), Long::sum);
        }
    }

    /** What {@code need} lacks here, e.g. "GPU 4 (free 2)", or "" if it fits. */
    public String shortfall(Resources need) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, Long> e : need.units.entrySet()) {
            long have = get(e.getKey());
            if (have < e.getValue()) {
                if (!sb.isEmpty()) sb.append(", ");
                sb.append(format(e.getValue())).append(' ').append(e.getKey())
                        .append(" (has ").append(format(have)).append(')');
            }
        }
        return sb.toString();
    }

    public static String format(long units) {
        double v = toAmount(units);
        return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
    }

    /** Writes this bag as a JSON object, the same as {@link #toJson()}, without building a tree. */
    public void write(JsonGenerator g) throws IOException {
        g.writeStartObject();
        for (var e : units.entrySet()) g.writeNumberField(e.getKey(), toAmount(e.getValue()));
        g.writeEndObject();
    }

    public ObjectNode toJson() {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        units.forEach((k, v) -> o.put(k, toAmount(v)));
        return o;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        units.forEach((k, v) -> {
            if (sb.length() > 1) sb.append(", ");
            sb.append(k).append(": ").append(format(v));
        });
        return sb.append('}').toString();
    }
}
