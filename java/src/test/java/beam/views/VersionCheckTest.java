package beam.views;

import beam.util.Scheduler;
import static org.assertj.core.api.Assertions.assertThat;

import beam.cluster.Cluster;
import beam.cluster.Node;
import beam.cluster.Resources;
import beam.codec.FrameCodec;
import beam.protocol.FactsCodec;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each node asks its Python for versions a moment after it starts: which answer reaches the head first is a race. */
class VersionCheckTest {
    private static Map<String, String> versions(String json) throws Exception {
        return FactsCodec.versions(FrameCodec.json().readTree(json));
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
    void aMemberWhosePythonAnsweredBeforeTheHeadsIsComparedWhenTheHeadsArrives() throws Exception {
        Cluster cluster = twoNodes();
        VersionCheck.record(cluster, "member", versions("{\"python\": \"3.11.7\", \"cloudpickle\": \"3.1.3\"}"));
        assertThat(warnings(cluster, "member")).isEmpty();
        VersionCheck.record(cluster, "head", versions("{\"python\": \"3.11.2\", \"cloudpickle\": \"3.1.3\"}"));
        assertThat(warnings(cluster, "member")).isEmpty(); // same major.minor, same cloudpickle: nothing to warn

        Cluster other = twoNodes();
        VersionCheck.record(other, "member", versions("{\"python\": \"3.12.1\", \"cloudpickle\": \"3.1.3\"}"));
        VersionCheck.record(other, "head", versions("{\"python\": \"3.11.7\", \"cloudpickle\": \"3.1.3\"}"));
        assertThat(warnings(other, "member")).containsExactly("python 3.12.1 on 10.0.0.2 differs from 3.11.7 on the head");
    }

    @Test
    void aMemberAfterTheHeadIsComparedAtOnceAndAPythonThatCouldNotRunCountsAsAnswered() throws Exception {
        Cluster cluster = twoNodes();
        VersionCheck.record(cluster, "head", versions("{\"python\": \"3.11.7\", \"cloudpickle\": \"3.1.3\"}"));
        VersionCheck.record(cluster, "member", versions("{\"python\": null}"));
        assertThat(warnings(cluster, "member")).containsExactly(
                "python (not installed) on 10.0.0.2 differs from 3.11.7 on the head",
                "cloudpickle (not installed) on 10.0.0.2 differs from 3.1.3 on the head");
    }
}
