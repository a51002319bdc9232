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
 * label or has another value), {@code "in(a, b)"} and {@code "!in(a, b)"}. Ray's older
 * {@code NodeLabelSchedulingStrategy} adds {@code Exists()} and {@code DoesNotExist()}: a
 * condition without values ({@link #exists}).
 */
public record LabelSelector(List<Condition> conditions) {
    public static final LabelSelector NONE = new LabelSelector(List.of());

    private static final Pattern VALUE = Pattern.compile(
            "(?<notIn>!?)(?:in)?\\((?<set>" + Labels.NAME + "(?:, ?" + Labels.NAME + ")*)\\)|(?<not>!?)(?<one>" + Labels.NAME + ")");

    /**
     * {@code key} has one of {@code values}, or any value when there are none ({@code negated}:
     * it lacks the key or has none of them; with no values, it lacks the key).
     */
    public record Condition(String key, boolean negated, List<String> values) {
        public Condition {
            values = List.copyOf(values);
        }

        boolean holdsOn(Map<String, String> labels) {
            String value = labels.get(key);
            boolean in = value != null && (values.isEmpty() || values.contains(value));
            return negated != in;
        }

        @Override
        public String toString() {
            if (values.isEmpty()) return (negated ? "!" : "") + key;
            String set = values.size() == 1 ? values.get(0) : "in(" + String.join(",", values) + ")";
            return key + "=" + (negated ? "!" : "") + set;
        }
    }

    /** {@code key} is present ({@code negated}: absent), whatever its value. */
    public static Condition exists(String key, boolean negated) {
        String wrong = Labels.keyError(key);
        if (wrong != null) throw new IllegalArgumentException(wrong);
        return new Condition(key, negated, List.of());
    }

    /** {@code key} has one of {@code values} ({@code negated}: none of them), each checked as a label value. */
    public static Condition in(String key, boolean negated, List<String> values) {
        String wrong = Labels.keyError(key);
        for (String v : values) if (wrong == null) wrong = Labels.valueError(v);
        if (wrong != null) throw new IllegalArgumentException(wrong);
        if (values.isEmpty()) throw new IllegalArgumentException("In and NotIn need at least one value for '" + key + "'");
        return new Condition(key, negated, values);
    }

    /** Every condition of this one and of {@code other}. */
    public LabelSelector and(LabelSelector other) {
        List<Condition> all = new ArrayList<>(conditions);
        all.addAll(other.conditions);
        return new LabelSelector(all);
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
