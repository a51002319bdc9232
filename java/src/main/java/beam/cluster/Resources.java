package beam.cluster;

import java.util.Collections;
import java.util.LinkedHashMap;
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

    /**
     * The bag of {@code amounts} (name to amount, as read from a request, a join or
     * {@code --resources}); {@code what} names them in the error of an amount that is negative,
     * not finite or below the resolution. Zero amounts are left out.
     */
    public static Resources of(Map<String, Double> amounts, String what) {
        Resources r = new Resources();
        for (Map.Entry<String, Double> e : amounts.entrySet()) {
            double v = e.getValue();
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

    /** Each amount by name, in name order: what the wire and the views write ({@code protocol/ResourceJson}). */
    public Map<String, Double> amounts() {
        Map<String, Double> out = new LinkedHashMap<>();
        units.forEach((k, v) -> out.put(k, toAmount(v)));
        return out;
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
