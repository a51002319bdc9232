package beam.node;

import beam.codec.Frame;
import java.util.List;

/**
 * What a {@link NodeAgent} reports about the processes it runs. On the head these go
 * straight to the cluster state; on a joined node they travel over the link to the head.
 */
public interface ActorEvents {
    void started(String actorId, long pid);

    void startFailed(String actorId, String detail);

    /**
     * The process is gone; {@code exitCode} is 128+N for signal N. {@code oomKills} is how
     * many processes the kernel's OOM killer killed on this node while it ran.
     */
    void exited(String actorId, int exitCode, List<String> stderrTail, long oomKills);

    /** A {@code log} frame for the actor's owner. */
    void log(String actorId, Frame logFrame);
}
