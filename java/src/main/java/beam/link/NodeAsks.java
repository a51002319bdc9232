package beam.link;

import beam.protocol.LinkMessage;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The head's questions to one joined node that wait for their {@code node_answer}. Each
 * ends exactly once: answered, failed with the node's error, or failed when the node is lost
 * (then every waiting one fails, naming the node). How long to wait is the asker's choice;
 * an answer that comes after the asker gave up completes a future no one reads any more.
 */
final class NodeAsks {
    private final String peerName;
    private final Map<Long, CompletableFuture<JsonNode>> waiting = new ConcurrentHashMap<>();
    private final AtomicLong nextId = new AtomicLong();
    private volatile String lostReason;

    NodeAsks(String peerName) {
        this.peerName = peerName;
    }

    CompletableFuture<JsonNode> ask(String kind, JsonNode args, Consumer<LinkMessage> send) {
        long id = nextId.incrementAndGet();
        CompletableFuture<JsonNode> answer = new CompletableFuture<>();
        waiting.put(id, answer);
        answer.whenComplete((r, e) -> waiting.remove(id));
        String lost = lostReason;
        if (lost != null) {
            answer.completeExceptionally(new IllegalStateException(peerName + " is lost: " + lost));
            return answer;
        }
        send.accept(new LinkMessage.NodeAsk(id, kind, args));
        return answer;
    }

    void answered(LinkMessage.NodeAnswer a) {
        CompletableFuture<JsonNode> answer = waiting.get(a.askId());
        if (answer == null) return;
        if (a.error() == null) answer.complete(a.result());
        else answer.completeExceptionally(new IllegalStateException(peerName + ": " + a.error()));
    }

    void lost(String reason) {
        lostReason = reason;
        var lost = new IllegalStateException(peerName + " was lost before it answered: " + reason);
        waiting.values().forEach(f -> f.completeExceptionally(lost));
    }

    /** The message a failed answer sends back: the cause, not the future's wrapper. */
    static String why(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) t = t.getCause();
        return t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
    }
}
