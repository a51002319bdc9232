package beam.views;

import beam.util.Scheduler;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import beam.cluster.Cluster;
import beam.cluster.Node;
import beam.cluster.RequestException;
import beam.cluster.Resources;
import beam.util.NodeQuestion.DumpStacks;
import beam.util.NodeQuestion.DumpedStacks;
import beam.util.NodeQuestion.StackDump;
import beam.util.NodeQuestion.StackTarget;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The head's side of ray stack: which node is asked for which pids, and how silence and refusals read. */
class StacksTest {
    private final Cluster cluster = new Cluster("ns", Scheduler.system());
    private final List<Stacks.Driver> drivers = List.of(new Stacks.Driver(11, "n1", "10.0.0.1", "01000000"),
            new Stacks.Driver(22, "n2", "10.0.0.2", "02000000"));
    private final List<String> asked = new ArrayList<>();

    StacksTest() {
        Resources cpu = new Resources().set("CPU", Resources.UNIT);
        cluster.addNode(new Node("n1", "10.0.0.1", "host1", true, cpu, Map.of(), null));
        cluster.addNode(new Node("n2", "10.0.0.2", "host2", false, cpu, Map.of(), null));
    }

    /** host1 dumps what it is asked for; host2 never answers. */
    private CompletableFuture<DumpedStacks> answer(beam.cluster.NodeSnapshot node, DumpStacks question) {
        asked.add(node.hostname() + ":" + question.processes());
        if (!node.id().equals("n1")) return new CompletableFuture<>();
        List<StackDump> dumps = new ArrayList<>();
        for (StackTarget p : question.processes()) dumps.add(new StackDump(p.pid(), "Current thread 0x1", null));
        return CompletableFuture.completedFuture(new DumpedStacks(dumps));
    }

    @Test
    void aSilentNodeIsNamedAndItsProcessesListedWithinTheBound() throws Exception {
        long started = System.nanoTime();
        ObjectNode report = Stacks.run(cluster.snapshot(), drivers, new Stacks.Filter(null, null, 0), this::answer);
        // host2 never answers: given up at the bound, not waited on (generous for a loaded machine)
        assertThat((System.nanoTime() - started) / 1_000_000).isLessThan(Stacks.NODE_ANSWER_MS + 20_000);
        assertThat(asked).containsExactly("host1:[StackTarget[pid=11, actor=false]]", "host2:[StackTarget[pid=22, actor=false]]");
        JsonNode rows = report.path("processes");
        assertThat(rows.get(0).path("stack").asText()).isEqualTo("Current thread 0x1");
        assertThat(rows.get(0).path("job_id").asText()).isEqualTo("01000000");
        assertThat(rows.get(1).path("error").asText())
                .isEqualTo("its node did not answer: node host2 (10.0.0.2) did not answer within 4000 ms");
        JsonNode silent = report.path("nodes_not_answering").get(0);
        assertThat(silent.path("hostname").asText()).isEqualTo("host2");
        assertThat(silent.path("node_ip").asText()).isEqualTo("10.0.0.2");
    }

    @Test
    void narrowingAsksOnlyTheNodeConcernedAndAFailedAskSaysWhy() throws Exception {
        ObjectNode report = Stacks.run(cluster.snapshot(), drivers, new Stacks.Filter("10.0.0.1", null, 0), this::answer);
        assertThat(asked).hasSize(1);
        assertThat(report.path("processes")).hasSize(1);
        report = Stacks.run(cluster.snapshot(), drivers, new Stacks.Filter(null, null, 22),
                (node, question) -> CompletableFuture.failedFuture(new IllegalStateException("node host2 is lost")));
        assertThat(report.path("processes").get(0).path("error").asText()).isEqualTo("its node did not answer: node host2 is lost");
    }

    @Test
    void namesTheClusterDoesNotKnowAreRefusedBeforeAnyNodeIsAsked() {
        assertThatThrownBy(() -> Stacks.run(cluster.snapshot(), drivers, new Stacks.Filter(null, null, 33), this::answer))
                .isInstanceOf(RequestException.class).hasMessageContaining("--pid 33: no actor process or connected driver");
        assertThatThrownBy(() -> Stacks.run(cluster.snapshot(), drivers, new Stacks.Filter("10.9.9.9", null, 0), this::answer))
                .hasMessageContaining("no live node has that IP; the cluster's nodes are 10.0.0.1, 10.0.0.2");
        assertThatThrownBy(() -> Stacks.run(cluster.snapshot(), drivers, new Stacks.Filter(null, "ab".repeat(16), 0), this::answer))
                .hasMessageContaining("no such actor");
        assertThat(asked).isEmpty();
    }
}
