package beam.cluster;

import beam.util.NodeQuestion;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * What the cluster asks of the node that hosts an actor: start or kill its process, answer a
 * question. The head's own node answers in-process ({@code daemon/HeadOwnNode}); a joined node
 * answers over its TCP link ({@code link/head/HeadLinkToMember}). Both report back through the
 * {@link Cluster} callbacks ({@code onActorProcessStarted}, {@code onActorExited}).
 */
public interface NodeControl {
    /**
     * Starts the actor's worker process with these device ids per accelerator resource; must
     * not block the caller for long.
     */
    void startActor(ActorRecord actor, Map<String, List<String>> deviceIds);

    /** Kills the actor's process tree (SIGKILL). No-op if it is not running. */
    void killActor(ActorRecord actor);

    /**
     * Asks the node a question ({@link NodeQuestion}: ray doctor's probe, the diagnostics that
     * read its host). The future fails, naming the node, when the node cannot answer or is lost
     * first; the caller bounds the wait.
     */
    <A extends NodeQuestion.Answer> CompletableFuture<A> ask(NodeQuestion<A> question);
}
