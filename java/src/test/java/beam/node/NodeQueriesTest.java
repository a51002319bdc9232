package beam.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class NodeQueriesTest {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    @Test
    void answersByKindAndSaysWhenItDoesNotKnowOne() {
        NodeQueries q = new NodeQueries();
        q.register("echo", args -> CompletableFuture.completedFuture((JsonNode) args));
        assertThat(q.answer("echo", F.textNode("hi")).join().asText()).isEqualTo("hi");
        assertThatThrownBy(() -> q.answer("stack", F.objectNode()).join())
                .hasMessageContaining("this node does not answer 'stack'");
    }

    @Test
    void anAnswererThatThrowsFailsItsAnswerOnly() {
        NodeQueries q = new NodeQueries();
        q.register("boom", args -> {
            throw new IllegalArgumentException("bad pid");
        });
        assertThatThrownBy(() -> q.answer("boom", F.objectNode()).join()).hasMessageContaining("bad pid");
    }

    @Test
    void kindsAreShortNamesRegisteredOnce() {
        NodeQueries q = new NodeQueries();
        q.register("logs", args -> CompletableFuture.completedFuture(args));
        assertThatThrownBy(() -> q.register("logs", args -> null)).hasMessageContaining("answered already");
        assertThatThrownBy(() -> q.register("../x", args -> null)).hasMessageContaining("bad node query kind");
        assertThatThrownBy(() -> q.register("x".repeat(40), args -> null)).hasMessageContaining("bad node query kind");
    }
}
