package beam.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Ray's label syntax, its selector operators and the order label sources combine in. */
class LabelsTest {
    private static final Map<String, String> NODE = Map.of("zone", "us-west1-a", "gpu", "a100");

    private static boolean selects(String key, String value) {
        return LabelSelector.parse(Map.of(key, value)).matches(NODE);
    }

    @Test
    void eachOperatorHoldsAsRaysDoes() {
        assertThat(selects("zone", "us-west1-a")).isTrue();
        assertThat(selects("zone", "us-east1")).isFalse();
        assertThat(selects("zone", "!us-east1")).isTrue();
        assertThat(selects("zone", "!us-west1-a")).isFalse();
        assertThat(selects("zone", "in(us-east1, us-west1-a)")).isTrue();
        assertThat(selects("zone", "in(us-east1,eu)")).isFalse();
        assertThat(selects("zone", "!in(us-east1,eu)")).isTrue();
        assertThat(selects("market", "!spot")).as("a node without the key is not 'spot'").isTrue();
        assertThat(selects("market", "spot")).isFalse();
        assertThat(selects("market", "in(spot)")).isFalse();
        assertThat(LabelSelector.NONE.matches(Map.of())).isTrue();
    }

    @Test
    void existsAndDoesNotExistLookOnlyAtTheKey() {
        LabelSelector has = new LabelSelector(List.of(LabelSelector.exists("gpu", false)));
        LabelSelector lacks = new LabelSelector(List.of(LabelSelector.exists("gpu", true)));
        assertThat(has.matches(NODE)).isTrue();
        assertThat(lacks.matches(NODE)).isFalse();
        assertThat(has.matches(Map.of("zone", "z"))).isFalse();
        assertThat(lacks.matches(Map.of("zone", "z"))).isTrue();
        assertThat(has.and(LabelSelector.parse(Map.of("zone", "!us-west1-a"))).matches(NODE)).isFalse();
        assertThatThrownBy(() -> LabelSelector.in("zone", false, List.of("-x"))).hasMessageContaining("`-x`");
    }

    @Test
    void everyConditionMustHold() {
        Map<String, String> both = new LinkedHashMap<>();
        both.put("zone", "us-west1-a");
        both.put("gpu", "!a100");
        assertThat(LabelSelector.parse(both).matches(NODE)).isFalse();
        both.put("gpu", "a100");
        assertThat(LabelSelector.parse(both).matches(NODE)).isTrue();
    }

    @Test
    void badSelectorsAreRefusedWithRaysWords() {
        for (String bad : List.of("-x", "in()", "in(a,", "!!a", "a b", "x".repeat(64))) {
            assertThatThrownBy(() -> LabelSelector.parse(Map.of("zone", bad)))
                    .hasMessageStartingWith("Invalid label selector value `" + bad + "`");
        }
        assertThatThrownBy(() -> LabelSelector.parse(Map.of("-k", "a"))).hasMessageStartingWith("Invalid label key name `-k`");
        assertThatThrownBy(() -> LabelSelector.parse(Map.of("a$b/k", "a")))
                .hasMessageStartingWith("Invalid label key prefix `a$b`");
    }

    @Test
    void nodeLabelsFollowKubernetesSyntax() {
        assertThat(Labels.keyError("ray.io/accelerator-type")).isNull();
        assertThat(Labels.keyError("example.com/rack")).isNull();
        assertThat(Labels.valueError("")).isNull();
        assertThat(Labels.valueError("H100")).isNull();
        assertThat(Labels.valueError("a,b")).startsWith("Invalid label key value `a,b`");
        assertThatThrownBy(() -> Labels.checked(Map.of("zone", "-a"))).hasMessageContaining("`-a`");
    }

    @Test
    void defaultsGoUnderTheUsersAndTheNodeIdIsAlwaysItsOwn() {
        Map<String, String> env = Map.of("RAY_NODE_ZONE", "z1", "RAY_NODE_MARKET_TYPE", "spot", "RAY_NODE_REGION", "");
        Map<String, String> defaults = Labels.defaults("H100", env::get);
        assertThat(defaults).containsExactlyInAnyOrderEntriesOf(Map.of("ray.io/availability-zone", "z1",
                "ray.io/market-type", "spot", Labels.ACCELERATOR_TYPE, "H100"));
        Map<String, String> merged = Labels.merged(defaults, Map.of("ray.io/market-type", "on-demand"));
        assertThat(merged).containsEntry("ray.io/market-type", "on-demand");
        Map<String, String> known = Labels.ofNode("ab".repeat(28), Map.of(Labels.NODE_ID, "forged", "zone", "z1"));
        assertThat(known).containsExactlyInAnyOrderEntriesOf(Map.of(Labels.NODE_ID, "ab".repeat(28), "zone", "z1"));
    }
}
