package beam.node;

import beam.protocol.LinkMessage;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * What this node answers when the head asks it something by kind ({@code probe}, and the
 * diagnostics that read this host: stacks, log files). The head's own node answers in
 * process, a joined node over its link ({@code node_ask}, docs/PROTOCOL.md); both go through
 * here, so a question is answered the same way wherever its node runs. Each daemon registers
 * its answerers once, at start.
 *
 * <p>An answerer must not block the caller (it returns a future) and must bound what it
 * answers: an answer travels in one frame header, which the link refuses above its limit.
 */
public final class NodeQueries {
    private final Map<String, Function<JsonNode, CompletableFuture<JsonNode>>> answerers = new ConcurrentHashMap<>();

    public void register(String kind, Function<JsonNode, CompletableFuture<JsonNode>> answerer) {
        if (!LinkMessage.NodeAsk.KIND.matcher(kind).matches()) throw new IllegalArgumentException("bad node query kind " + kind);
        if (answerers.putIfAbsent(kind, answerer) != null) throw new IllegalStateException(kind + " is answered already");
    }

    /** The answer to {@code kind}; failed when no answerer knows the kind or the answerer throws. */
    public CompletableFuture<JsonNode> answer(String kind, JsonNode args) {
        var answerer = answerers.get(kind);
        if (answerer == null) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "this node does not answer '" + kind + "' (a node of another beam version?)"));
        }
        try {
            return answerer.apply(args);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
