package beam.cluster;

import java.util.List;

/**
 * What a placement group request must be, checked by the daemon for every client, in Ray's
 * words. The Python shim makes the same checks before it touches the cluster, as Ray does;
 * tests/golden/pg_checks.json binds the two (GroupRulesGoldenTest, test_pg_checks_golden.py).
 */
final class GroupRules {
    /** Ray's placement strategies. */
    static final List<String> STRATEGIES = List.of("PACK", "SPREAD", "STRICT_PACK", "STRICT_SPREAD");
    private static final String EXAMPLE = "For example: `[{'CPU': 1.0}, {'GPU': 1.0}]`.";

    private GroupRules() {
    }

    /** Rejects a strategy Ray does not have, no bundles, or a bundle that holds nothing. */
    static void check(String strategy, List<Resources> bundles) throws RequestException {
        if (bundles.isEmpty()) {
            throw RequestException.value("Bundles must be a non-empty list of resource dictionaries. " + EXAMPLE
                    + " Got empty list instead.");
        }
        for (int i = 0; i < bundles.size(); i++) {
            if (bundles.get(i).isEmpty()) {
                throw RequestException.value("Bundles cannot be an empty dictionary or resources with only 0 values. "
                        + "Bundle " + i + " of " + bundles.size() + " holds no resource > 0.");
            }
        }
        if (!STRATEGIES.contains(strategy)) {
            throw RequestException.value("Invalid placement group strategy " + strategy + ". Supported strategies are: "
                    + pythonList(STRATEGIES.stream().sorted().toList()) + ".");
        }
    }

    /** {@code ['A', 'B']}, as Python prints a list of strings. */
    private static String pythonList(List<String> items) {
        return "[" + String.join(", ", items.stream().map(s -> "'" + s + "'").toList()) + "]";
    }
}
