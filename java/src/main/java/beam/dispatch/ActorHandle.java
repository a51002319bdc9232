package beam.dispatch;

import beam.cluster.ActorRecord;
import beam.codec.Frame;
import beam.protocol.Frames;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The reply to {@code get_actor}: what a driver needs to make a handle to a named actor. */
final class ActorHandle {
    private ActorHandle() {
    }

    static Frame reply(long rid, ActorRecord actor) {
        ObjectNode h = Frames.ok(rid);
        h.put("actor_id", actor.id());
        h.put("class_name", actor.className());
        h.put("max_concurrency", actor.options().maxConcurrency());
        h.put("is_async", actor.options().isAsync());
        ArrayNode methods = h.putArray("methods");
        actor.options().methods().forEach(methods::add);
        return new Frame(h);
    }
}
