package beam.link.head;

import beam.protocol.LinkMessage;
import beam.util.NodeQuestion;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The head's questions to one joined node that wait for their answer ({@code node_ask} /
 * {@code node_answer}). Each ends exactly once: answered with its question's answer type,
 * failed with the node's error, or failed when the node is lost (then every waiting one
 * fails, naming the node). How long to wait is the asker's choice; an answer that comes after
 * the asker gave up completes a future no one reads any more.
 */
final class PendingAsks {
    /** A question sent and the future its answer completes. */
    private record Waiting<A extends NodeQuestion.Answer>(NodeQuestion<A> question, CompletableFuture<A> answer) {
        void complete(NodeQuestion.Answer given, String peerName) {
            if (question.answerType().isInstance(given)) answer.complete(question.answerType().cast(given));
            else answer.completeExceptionally(new IllegalStateException(peerName + " answered a '" + question.kind()
                    + "' question with " + given.getClass().getSimpleName()));
        }
    }

    private final String peerName;
    private final Map<Long, Waiting<?>> waiting = new ConcurrentHashMap<>();
    private final AtomicLong nextId = new AtomicLong();
    private volatile String lostReason;

    PendingAsks(String peerName) {
        this.peerName = peerName;
    }

    <A extends NodeQuestion.Answer> CompletableFuture<A> ask(NodeQuestion<A> question, Consumer<LinkMessage> send) {
        long id = nextId.incrementAndGet();
        CompletableFuture<A> answer = new CompletableFuture<>();
        waiting.put(id, new Waiting<>(question, answer));
        answer.whenComplete((r, e) -> waiting.remove(id));
        String lost = lostReason;
        if (lost != null) {
            answer.completeExceptionally(new IllegalStateException(peerName + " is lost: " + lost));
            return answer;
        }
        send.accept(new LinkMessage.Ask(id, question));
        return answer;
    }

    void answered(LinkMessage.AskAnswer a) {
        Waiting<?> w = waiting.get(a.askId());
        if (w == null) return;
        if (a.error() == null) w.complete(a.answer(), peerName);
        else w.answer().completeExceptionally(new IllegalStateException(peerName + ": " + a.error()));
    }

    void lost(String reason) {
        lostReason = reason;
        var lost = new IllegalStateException(peerName + " was lost before it answered: " + reason);
        waiting.values().forEach(w -> w.answer().completeExceptionally(lost));
    }
}
