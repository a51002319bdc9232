package beam.daemon;

import beam.codec.Frame;
import beam.link.member.MemberLinkToHead;
import beam.node.ActorEvents;
import java.util.List;

/** A joined node's actor events (its agent's starts, exits and logs): each goes up its link to the head. */
record MemberActorEvents(MemberLinkToHead link) implements ActorEvents {
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
