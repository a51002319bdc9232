package beam.node;

import static org.assertj.core.api.Assertions.assertThat;

import beam.util.NodeQuestion.DumpStacks;
import beam.util.NodeQuestion.DumpedStacks;
import beam.util.NodeQuestion.ListLogs;
import beam.util.NodeQuestion.LogFile;
import beam.util.NodeQuestion.LogFiles;
import beam.util.NodeQuestion.LogRead;
import beam.util.NodeQuestion.LogText;
import beam.util.NodeQuestion.Probe;
import beam.util.NodeQuestion.ProbeResults;
import beam.util.NodeQuestion.ProbeTarget;
import beam.util.NodeQuestion.ReadLog;
import beam.util.NodeQuestion.StackTarget;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each kind of question reaches the part of the node that answers it, with its own answer type. */
class NodeAnswersTest {
    @TempDir
    Path session;

    private NodeAnswers answers() throws Exception {
        Path logs = Files.createDirectories(session.resolve("logs"));
        Files.writeString(logs.resolve("a.log"), "one\ntwo\n");
        return new NodeAnswers(new NodeLogs(logs), new StackDumps(Files.createDirectories(session.resolve("stacks")), pid -> false));
    }

    @Test
    void logQuestionsAreAnsweredFromThisNodesLogsFolder() throws Exception {
        NodeAnswers node = answers();
        LogFiles files = node.answer(new ListLogs("*.log")).get(10, TimeUnit.SECONDS);
        assertThat(files.files()).containsExactly(new LogFile("a.log", 8));
        LogRead read = node.answer(new ReadLog("out", 1, -1, "a.log", null, 0)).get(10, TimeUnit.SECONDS);
        assertThat(read).isEqualTo(new LogText("a.log", "two\n", 8, false));
    }

    @Test
    void aProbeConnectsToEachTargetAndSaysWhichFailed() throws Exception {
        List<ProbeTarget> targets = new ArrayList<>();
        try (ServerSocket open = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            targets.add(new ProbeTarget("up", "127.0.0.1", open.getLocalPort()));
            targets.add(new ProbeTarget("none", "127.0.0.1", -1));
            ProbeResults results = answers().answer(new Probe(targets)).get(10, TimeUnit.SECONDS);
            assertThat(results.results()).extracting(r -> r.nodeId() + ":" + r.ok()).containsExactly("up:true", "none:false");
            assertThat(results.results().get(1).error()).contains("has no probe port");
        }
    }

    @Test
    void aQuestionItCannotAnswerFailsItsAnswerOnly() throws Exception {
        var targets = new ArrayList<StackTarget>();
        for (int i = 0; i <= StackDumps.MAX_PROCESSES; i++) targets.add(new StackTarget(i + 1, false));
        var refused = answers().answer(new DumpStacks(targets, 0));
        assertThat(refused).failsWithin(10, TimeUnit.SECONDS).withThrowableThat().withMessageContaining("at most 4096");
        DumpedStacks none = answers().answer(new DumpStacks(List.of(new StackTarget(-1, false)), 0)).get(10, TimeUnit.SECONDS);
        assertThat(none.processes().getFirst().error()).isEqualTo("not a pid");
    }
}
