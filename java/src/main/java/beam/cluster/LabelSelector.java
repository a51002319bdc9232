package beam.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Ray's {@code label_selector} (an actor's) and one entry of {@code bundle_label_selector} (a
 * placement group bundle's): every condition must hold on the node. A condition is written
 * as Ray writes it: {@code "a100"} (the label equals it), {@code "!spot"} (the node lacks the
 * label or has another value), {@code "in(a, b)"} and {@code "!in(a, b)"}.
 */
public record LabelSelector(List<Condition> conditions) {
    public static final LabelSelector NONE = new LabelSelector(List.of());

    private static final Pattern VALUE = Pattern.compile(
            "(?<notIn>!?)(?:in)?\\((?<set>" + Labels.NAME + "(?:, ?" + Labels.NAME + ")*)\\)|(?<not>!?)(?<one>" + Labels.NAME + ")");

    /** {@code key} has one of {@code values} ({@code negated}: it lacks the key or has none of them). */
    public record Condition(String key, boolean negated, List<String> values) {
        boolean holdsOn(Map<String, String> labels) {
            String value = labels.get(key);
            boolean in = value != null && values.contains(value);
            return negated != in;
        }

        @Override
        public String toString() {
            String set = values.size() == 1 ? values.get(0) : "in(" + String.join(",", values) + ")";
            return key + "=" + (negated ? "!" : "") + set;
        }
    }

    public LabelSelector {
        conditions = List.copyOf(conditions);
    }

    /** Ray's selector map, checked with Ray's words for a bad key or value. */
    public static LabelSelector parse(Map<String, String> selector) {
        List<Condition> out = new ArrayList<>();
        for (Map.Entry<String, String> e : selector.entrySet()) {
            String wrong = Labels.keyError(e.getKey());
            if (wrong != null) throw new IllegalArgumentException(wrong);
            out.add(condition(e.getKey(), e.getValue()));
        }
        return new LabelSelector(out);
    }

    private static Condition condition(String key, String text) {
        if (text.isEmpty()) return new Condition(key, false, List.of(""));
        Matcher m = VALUE.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException("Invalid label selector value `" + text + "`. The label selector value "
                    + "should contain optional operators and a label value. Supported operators are: ! and {'in'}. "
                    + "Value " + Labels.NAME_RULE);
        }
        if (m.group("set") != null) {
            List<String> values = new ArrayList<>();
            for (String v : m.group("set").split(",")) values.add(v.strip());
            return new Condition(key, !m.group("notIn").isEmpty(), values);
        }
        return new Condition(key, !m.group("not").isEmpty(), List.of(m.group("one")));
    }

    public boolean isEmpty() {
        return conditions.isEmpty();
    }

    /** Whether a node with {@code labels} satisfies every condition. */
    public boolean matches(Map<String, String> labels) {
        for (Condition c : conditions) if (!c.holdsOn(labels)) return false;
        return true;
    }

    @Override
    public String toString() {
        return conditions.toString().replace("[", "{").replace("]", "}");
    }
}
