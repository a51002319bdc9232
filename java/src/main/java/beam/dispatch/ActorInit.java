package beam.dispatch;

import beam.cluster.ActorRecord;
import beam.cluster.Resources;
import beam.codec.Frame;
import beam.codec.FrameCodec;
import beam.protocol.Frames;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Builds the {@code actor_init} frame a new worker receives after its hello. */
final class ActorInit {
    private ActorInit() {
    }

    static Frame frame(ActorRecord actor, DaemonContext daemon, Origin origin) {
        ObjectNode h = Frames.header("actor_init");
        h.put("actor_id", actor.id());
        h.put("class_name", actor.className());
        h.put("node_id", actor.nodeId());
        h.put("node_ip", actor.nodeIp());
        h.put("job_id", actor.owner().jobId());
        h.put("namespace", actor.namespace());
        h.put("gcs_address", daemon.gcsAddress());
        h.put("session_dir", origin.sessionDir());
        h.set("accelerator_ids", FrameCodec.json().valueToTree(actor.deviceIds()));
        h.put("pg_id", actor.groupId());
        h.put("bundle_index", actor.bundleIndex());
        h.set("resources", assigned(actor));
        h.set("runtime_env", runtimeEnv(actor));
        h.put("max_concurrency", actor.options().maxConcurrency());
        h.put("is_async", actor.options().isAsync());
        return new Frame(h, actor.createPayload());
    }

    /** The actor's runtime_env as the driver gave it; the request's parser read it once, so it reads again. */
    private static JsonNode runtimeEnv(ActorRecord actor) {
        try {
            return FrameCodec.json().readTree(actor.options().runtimeEnv().json());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the runtime_env of actor " + actor.id() + " no longer reads", e);
        }
    }

    /**
     * What {@code get_assigned_resources()} returns, as Ray: each resource the actor holds with
     * its amount (inside a placement group too, under the resource's own name), none at zero.
     */
    private static ObjectNode assigned(ActorRecord actor) {
        ObjectNode out = FrameCodec.json().createObjectNode();
        for (var e : actor.options().request().asMap().entrySet()) {
            if (e.getValue() > 0) out.put(e.getKey(), Resources.toAmount(e.getValue()));
        }
        return out;
    }
}
