package beam.daemon;

import beam.codec.Frame;
import beam.link.HeadLink;
import beam.node.ActorEvents;
import java.util.List;

/** A joined node's actor events: each goes up its link to the head. */
record LinkedEvents(HeadLink link) implements ActorEvents {
    @Override
    public void started(String actorId, long pid) {
        link.started(actorId, pid);
    }

    @Override
    public void startFailed(String actorId, String detail) {
        link.startFailed(actorId, detail);
    }

    @Override
    public void exited(String actorId, int exitCode, List<String> stderrTail, long oomKills) {
        link.exited(actorId, exitCode, stderrTail, oomKills);
    }

    @Override
    public void log(String actorId, Frame logFrame) {
        link.log(actorId, logFrame);
    }
}
