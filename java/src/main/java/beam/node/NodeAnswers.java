package beam.node;

import beam.link.Prober;
import beam.util.NodeQuestion;
import beam.util.NodeQuestion.DumpStacks;
import beam.util.NodeQuestion.ListLogs;
import beam.util.NodeQuestion.Probe;
import beam.util.NodeQuestion.ReadLog;
import java.util.concurrent.CompletableFuture;

/**
 * What this node answers when the head asks it a {@link NodeQuestion}: ray doctor's probe,
 * and the diagnostics that read this host (log files, stacks). The head's own node answers in
 * process, a joined node over its link (docs/PROTOCOL.md, {@code node_ask}); both come here,
 * so a question is answered the same way wherever its node runs. The switch is exhaustive: a
 * new kind of question does not compile until it is answered here.
 *
 * <p>An answer must not block the caller (it is a future) and must be bounded: it travels in
 * one frame header, which the link refuses above its limit.
 */
public final class NodeAnswers {
    private final NodeLogs logs;
    private final StackDumps stacks;

    public NodeAnswers(NodeLogs logs, StackDumps stacks) {
        this.logs = logs;
        this.stacks = stacks;
    }

    /** The answer to {@code question}; failed when answering it throws. */
    public <A extends NodeQuestion.Answer> CompletableFuture<A> answer(NodeQuestion<A> question) {
        CompletableFuture<? extends NodeQuestion.Answer> answer;
        try {
            answer = switch (question) {
                case Probe p -> Prober.probe(p);
                case ListLogs l -> logs.files(l);
                case ReadLog r -> logs.read(r);
                case DumpStacks s -> stacks.answer(s);
            };
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return answer.thenApply(question.answerType()::cast);
    }
}
