package beam.dispatch;

import beam.cluster.NodeSnapshot;
import beam.codec.Frame;
import beam.protocol.Frames;
import beam.protocol.Protocol;
import beam.protocol.Request;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The rules of a connection's first frame ({@code hello}, docs/PROTOCOL.md) and the daemon's answer to it. */
final class Handshake {
    private Handshake() {
    }

    /** Why {@code first} cannot open a connection, or null when it is a hello this daemon takes. */
    static String refusal(Request first) {
        if (!(first instanceof Request.Hello hello)) {
            return "the first message on a connection must be 'hello' (see docs/PROTOCOL.md)";
        }
        if (hello.proto() != Protocol.VERSION) {
            return "protocol version mismatch: this daemon speaks " + Protocol.VERSION + ", the client speaks "
                    + hello.proto() + ". Install the same beam version on both.";
        }
        if (!hello.role().equals("driver") && !hello.role().equals("worker")) return "hello: role must be 'driver' or 'worker'";
        return null;
    }

    /** The reply to an accepted hello: where the client is, who it is, and the frame limits it must keep to. */
    static Frame reply(long rid, String jobId, String namespace, DaemonContext daemon, Origin origin) {
        ObjectNode reply = Frames.ok(rid);
        reply.put("node_id", origin.nodeId());
        reply.put("node_ip", origin.nodeIp());
        NodeSnapshot node = daemon.cluster().node(origin.nodeId());
        if (node != null) node.labels().forEach(reply.putObject("node_labels")::put);
        reply.put("job_id", jobId);
        reply.put("session_dir", origin.sessionDir());
        reply.put("gcs_address", daemon.gcsAddress());
        reply.put("namespace", namespace);
        reply.put("max_header_bytes", daemon.limits().maxHeaderBytes());
        reply.put("max_payload_bytes", daemon.limits().maxPayloadBytes());
        return new Frame(reply);
    }
}
