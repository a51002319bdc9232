package beam.link.head;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import beam.protocol.LinkMessage;
import beam.util.NodeQuestion.DumpStacks;
import beam.util.NodeQuestion.DumpedStacks;
import beam.util.NodeQuestion.ListLogs;
import beam.util.NodeQuestion.LogFiles;
import beam.util.NodeQuestion.StackDump;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class PendingAsksTest {
    private static final DumpStacks STACKS = new DumpStacks(List.of(), DumpStacks.MAX_WAIT_MILLIS);
    private final List<LinkMessage> sent = new ArrayList<>();
    private final PendingAsks asks = new PendingAsks("node 10.0.0.2");

    private LinkMessage.Ask lastAsk() {
        return (LinkMessage.Ask) sent.getLast();
    }

    @Test
    void eachAnswerCompletesTheAskWithItsIdOnly() {
        CompletableFuture<DumpedStacks> first = asks.ask(STACKS, sent::add);
        long firstId = lastAsk().askId();
        CompletableFuture<LogFiles> second = asks.ask(new ListLogs("*.log"), sent::add);
        long secondId = lastAsk().askId();
        assertThat(firstId).isNotEqualTo(secondId);
        assertThat(lastAsk().question()).isEqualTo(new ListLogs("*.log"));

        LogFiles two = new LogFiles(List.of(), false, null);
        asks.answered(new LinkMessage.AskAnswer(secondId, two, null));
        assertThat(second.join()).isSameAs(two);
        assertThat(first).isNotDone();
        asks.answered(new LinkMessage.AskAnswer(secondId, new LogFiles(List.of(), true, null), null)); // a late duplicate: ignored
        assertThat(second.join()).isSameAs(two);
        asks.answered(new LinkMessage.AskAnswer(firstId, null, "this node does not answer 'stack'"));
        assertThatThrownBy(first::join).isInstanceOf(CompletionException.class)
                .hasMessageContaining("node 10.0.0.2: this node does not answer 'stack'");
    }

    @Test
    void anAnswerOfAnotherKindFailsTheAskNamingBoth() {
        CompletableFuture<LogFiles> listed = asks.ask(new ListLogs("*"), sent::add);
        asks.answered(new LinkMessage.AskAnswer(lastAsk().askId(), new DumpedStacks(List.of(new StackDump(1, "s", null))), null));
        assertThatThrownBy(listed::join).hasMessageContaining("node 10.0.0.2 answered a 'log_files' question with DumpedStacks");
    }

    @Test
    void aLostNodeFailsWhatWaitsAndWhatIsAskedAfter() {
        CompletableFuture<?> waiting = asks.ask(STACKS, sent::add);
        asks.lost("it sent no heartbeat for 2600 ms");
        assertThatThrownBy(waiting::join).hasMessageContaining("node 10.0.0.2 was lost before it answered: it sent no heartbeat");
        int before = sent.size();
        CompletableFuture<?> after = asks.ask(STACKS, sent::add);
        assertThatThrownBy(after::join).hasMessageContaining("node 10.0.0.2 is lost");
        assertThat(sent).hasSize(before); // nothing sent down a dead link
    }
}
