package beam.dispatch;

import beam.cluster.Client;
import beam.cluster.Forwarded;
import beam.codec.Frame;
import beam.protocol.Frames;
import beam.util.ErrorKind;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A {@link Client} whose events become the frames of docs/PROTOCOL.md: the one place that
 * says which frame each cluster event is. An implementation only says how a frame is sent.
 */
public interface FramedClient extends Client {
    /** Sends a frame to this client (a non-blocking write, or queued); never blocks, dropped if the client is gone. */
    void push(Frame frame);

    @Override
    default void runCall(String oid, String method, Forwarded message) {
        Frame call = message == Forwarded.NO_ARGUMENTS ? null : WireFrame.of(message);
        if (call != null && call.relay() != null) { // a plain call: the worker reads the same fields
            push(call);
            return;
        }
        ObjectNode h = Frames.header("call");
        h.put("oid", oid);
        h.put("method", method);
        push(call == null ? new Frame(h) : new Frame(h, call.payload()));
    }

    @Override
    default void callResult(Forwarded result) {
        push(WireFrame.of(result));
    }

    @Override
    default void actorDied(String oid, String deathMessage) {
        push(Frames.failedResult(oid, ErrorKind.ACTOR_DIED, deathMessage));
    }

    @Override
    default void actorUnschedulable(String oid, String reason) {
        push(Frames.failedResult(oid, ErrorKind.ACTOR_UNSCHEDULABLE, reason));
    }

    @Override
    default void noSuchActor(String oid, String message) {
        push(Frames.failedResult(oid, ErrorKind.INVALID_REQUEST, message));
    }

    @Override
    default void actorLog(Forwarded log) {
        push(WireFrame.of(log));
    }

    @Override
    default void warning(String message) {
        ObjectNode h = Frames.header("warning");
        h.put("message", message);
        push(new Frame(h));
    }

    @Override
    default void groupReady(String groupId) {
        push(Frames.pgEvent("pg_ready", groupId, null));
    }

    @Override
    default void groupRemoved(String groupId) {
        push(Frames.pgEvent("pg_removed", groupId, null));
    }

    @Override
    default void groupWaiting(String groupId, String message) {
        push(Frames.pgEvent("pg_waiting", groupId, message));
    }
}
