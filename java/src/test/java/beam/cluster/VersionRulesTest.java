package beam.cluster;

import beam.util.Scheduler;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each node asks its Python for versions a moment after it starts: which answer reaches the head first is a race. */
class VersionRulesTest {
    /** A node's versions as it reports them: name to version, null for a package not installed. */
    private static Map<String, String> versions(String... nameThenVersion) {
        Map<String, String> v = new java.util.LinkedHashMap<>();
        for (int i = 0; i < nameThenVersion.length; i += 2) v.put(nameThenVersion[i], nameThenVersion[i + 1]);
        return v;
    }

    private static Cluster twoNodes() {
        Cluster cluster = new Cluster("ns", Scheduler.system());
        Resources cpu = new Resources().set("CPU", Resources.UNIT);
        cluster.addNode(new Node("head", "10.0.0.1", "h1", true, cpu.copy(), Map.of(), null));
        cluster.addNode(new Node("member", "10.0.0.2", "h2", false, cpu.copy(), Map.of(), null));
        return cluster;
    }

    private static List<String> warnings(Cluster cluster, String nodeId) {
        List<String> warnings = cluster.node(nodeId).facts().versionWarnings();
        return warnings == null ? List.of() : warnings;
    }

    @Test
    void aMemberWhosePythonAnsweredBeforeTheHeadsIsComparedWhenTheHeadsArrives() {
        Cluster cluster = twoNodes();
        cluster.onNodeVersions("member", versions("python", "3.11.7", "cloudpickle", "3.1.3"));
        assertThat(warnings(cluster, "member")).isEmpty();
        cluster.onNodeVersions("head", versions("python", "3.11.2", "cloudpickle", "3.1.3"));
        assertThat(warnings(cluster, "member")).isEmpty(); // same major.minor, same cloudpickle: nothing to warn

        Cluster other = twoNodes();
        other.onNodeVersions("member", versions("python", "3.12.1", "cloudpickle", "3.1.3"));
        List<String> logged = other.onNodeVersions("head", versions("python", "3.11.7", "cloudpickle", "3.1.3"));
        assertThat(warnings(other, "member")).containsExactly("python 3.12.1 on 10.0.0.2 differs from 3.11.7 on the head");
        assertThat(logged).as("what the daemon logs").isEqualTo(warnings(other, "member"));
    }

    @Test
    void aMemberAfterTheHeadIsComparedAtOnceAndAPythonThatCouldNotRunCountsAsAnswered() {
        Cluster cluster = twoNodes();
        cluster.onNodeVersions("head", versions("python", "3.11.7", "cloudpickle", "3.1.3"));
        cluster.onNodeVersions("member", versions("python", null));
        assertThat(warnings(cluster, "member")).containsExactly(
                "python (not installed) on 10.0.0.2 differs from 3.11.7 on the head",
                "cloudpickle (not installed) on 10.0.0.2 differs from 3.1.3 on the head");
    }
}
