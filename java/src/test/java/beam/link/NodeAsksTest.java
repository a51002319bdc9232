package beam.link;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import beam.protocol.LinkMessage;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class NodeAsksTest {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private final List<LinkMessage> sent = new ArrayList<>();
    private final NodeAsks asks = new NodeAsks("node 10.0.0.2");

    private long lastAskId() {
        return ((LinkMessage.NodeAsk) sent.getLast()).askId();
    }

    @Test
    void eachAnswerCompletesTheAskWithItsIdOnly() {
        var first = asks.ask("stack", F.objectNode(), sent::add);
        long firstId = lastAskId();
        var second = asks.ask("logs", F.objectNode().put("tail", 5), sent::add);
        long secondId = lastAskId();
        assertThat(firstId).isNotEqualTo(secondId);
        assertThat(((LinkMessage.NodeAsk) sent.getLast()).kind()).isEqualTo("logs");

        asks.answered(new LinkMessage.NodeAnswer(secondId, F.textNode("two"), null));
        assertThat(second.join().asText()).isEqualTo("two");
        assertThat(first).isNotDone();
        asks.answered(new LinkMessage.NodeAnswer(secondId, F.textNode("again"), null)); // a late duplicate: ignored
        asks.answered(new LinkMessage.NodeAnswer(firstId, null, "this node does not answer 'stack'"));
        assertThatThrownBy(first::join).isInstanceOf(CompletionException.class)
                .hasMessageContaining("node 10.0.0.2: this node does not answer 'stack'");
    }

    @Test
    void aLostNodeFailsWhatWaitsAndWhatIsAskedAfter() {
        CompletableFuture<?> waiting = asks.ask("stack", F.objectNode(), sent::add);
        asks.lost("it sent no heartbeat for 2600 ms");
        assertThatThrownBy(waiting::join).hasMessageContaining("node 10.0.0.2 was lost before it answered: it sent no heartbeat");
        int before = sent.size();
        CompletableFuture<?> after = asks.ask("stack", F.objectNode(), sent::add);
        assertThatThrownBy(after::join).hasMessageContaining("node 10.0.0.2 is lost");
        assertThat(sent).hasSize(before); // nothing sent down a dead link
    }

    @Test
    void whyNamesTheCauseNotTheWrapper() {
        var failed = CompletableFuture.failedFuture(new IllegalStateException("no such pid")).thenApply(x -> x);
        Throwable t = failed.handle((r, e) -> e).join();
        assertThat(NodeAsks.why(t)).isEqualTo("no such pid");
    }
}
