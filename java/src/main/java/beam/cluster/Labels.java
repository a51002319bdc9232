package beam.cluster;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Node labels, as Ray's: Kubernetes label syntax for keys and values, Ray's default labels
 * (the node's id, its accelerator model, and what a Kubernetes pod spec tells it through the
 * environment), and the order in which they combine: defaults, then the user's
 * ({@code ray start --labels}, {@code --labels-file}), then {@code RAY_OVERRIDE_LABELS}.
 * The syntax rules and their wording are written here once; selectors ({@link LabelSelector})
 * and the CLI use them.
 */
public final class Labels {
    public static final String PREFIX = "ray.io/";
    public static final String NODE_ID = "ray.io/node-id";
    public static final String ACCELERATOR_TYPE = "ray.io/accelerator-type";
    /** Ray's default labels read from the environment (a KubeRay pod spec sets these), by variable. */
    public static final Map<String, String> FROM_ENVIRONMENT = Map.of(
            "RAY_NODE_MARKET_TYPE", "ray.io/market-type",
            "RAY_NODE_TYPE_NAME", "ray.io/node-group",
            "RAY_NODE_ZONE", "ray.io/availability-zone",
            "RAY_NODE_REGION", "ray.io/availability-region");
    /** A JSON object of labels that overrides every other source (Ray's autoscaler sets it). */
    public static final String OVERRIDE_ENV = "RAY_OVERRIDE_LABELS";

    /** A name or value: 63 characters at most, alphanumeric at both ends, [-_.] and alphanumerics between. */
    static final String NAME = "[a-zA-Z0-9]([a-zA-Z0-9_.-]{0,61}[a-zA-Z0-9])?";
    private static final Pattern NAME_PATTERN = Pattern.compile(NAME);
    /** A key's optional prefix: DNS labels separated by dots. */
    private static final Pattern PREFIX_PATTERN = Pattern.compile("(" + NAME + ")?(\\.(" + NAME + ")?)*");
    static final String NAME_RULE = "must be 63 chars or less beginning and ending with an alphanumeric character "
            + "([a-z0-9A-Z]) with dashes (-), underscores (_),dots (.), and alphanumerics between.";

    private Labels() {
    }

    /** Ray's message for a key that breaks the syntax, or null when it is a valid key. */
    public static String keyError(String key) {
        String name = key;
        int slash = key.lastIndexOf('/');
        if (slash >= 0) {
            String prefix = key.substring(0, slash);
            name = key.substring(slash + 1);
            if (prefix.length() > 253 || !PREFIX_PATTERN.matcher(prefix).matches()) {
                return "Invalid label key prefix `" + prefix + "`. Prefix must be a series of DNS labels separated by "
                        + "dots (.), not longer than 253 characters in total.";
            }
        }
        if (name.length() > 63 || !NAME_PATTERN.matcher(name).matches()) {
            return "Invalid label key name `" + name + "`. Name " + NAME_RULE;
        }
        return null;
    }

    /** Ray's message for a value that breaks the syntax, or null ({@code ""} is a valid value). */
    public static String valueError(String value) {
        if (value.isEmpty() || value.length() <= 63 && NAME_PATTERN.matcher(value).matches()) return null;
        return "Invalid label key value `" + value + "`. Value " + NAME_RULE;
    }

    /** {@code labels} unchanged when every key and value is valid; else Ray's message for the first that is not. */
    public static Map<String, String> checked(Map<String, String> labels) {
        for (Map.Entry<String, String> e : labels.entrySet()) {
            String wrong = keyError(e.getKey());
            if (wrong == null) wrong = valueError(e.getValue());
            if (wrong != null) throw new IllegalArgumentException(wrong);
        }
        return labels;
    }

    /**
     * Ray's default labels of a node: its accelerator model (null when it has none) and the
     * environment's {@link #FROM_ENVIRONMENT}. The node's id is added by the head, which
     * knows it for certain ({@link Node}).
     */
    public static Map<String, String> defaults(String acceleratorType, Function<String, String> environment) {
        Map<String, String> out = new LinkedHashMap<>();
        FROM_ENVIRONMENT.forEach((variable, key) -> {
            String value = environment.apply(variable);
            if (value != null && !value.isEmpty()) out.put(key, value);
        });
        if (acceleratorType != null && !acceleratorType.isEmpty()) out.put(ACCELERATOR_TYPE, acceleratorType);
        return out;
    }

    /** {@code under} with {@code over}'s labels on top (a later source wins, as Ray merges them). */
    public static Map<String, String> merged(Map<String, String> under, Map<String, String> over) {
        Map<String, String> out = new LinkedHashMap<>(under);
        out.putAll(over);
        return out;
    }

    /** The labels a node is known by: what it reported, with its id as {@link #NODE_ID} (never another). */
    static Map<String, String> ofNode(String nodeId, Map<String, String> reported) {
        Map<String, String> out = new LinkedHashMap<>();
        out.put(NODE_ID, nodeId);
        reported.forEach((k, v) -> {
            if (!k.equals(NODE_ID)) out.put(k, v);
        });
        return Collections.unmodifiableMap(out);
    }
}
