package beam.link.head;

import beam.auth.TokenAuth;
import beam.cluster.Labels;
import beam.cluster.Node;
import beam.cluster.NodeAccelerator;
import beam.cluster.Resources;
import beam.codec.Frame;
import beam.codec.FrameException;
import beam.codec.FrameLimits;
import beam.connection.Connection;
import beam.link.Heartbeat;
import beam.link.Pulse;
import beam.protocol.JoinCodec;
import beam.protocol.LinkCodec;
import beam.protocol.LinkMessage;
import beam.protocol.Protocol;
import beam.util.Ids;
import java.io.IOException;
import java.util.Map;
import java.util.logging.Logger;

/**
 * The head's TCP door. Every peer first gets a {@code challenge} with a fresh nonce; its
 * first frame must be {@code join} carrying HMAC-SHA256(token, nonce). A missing or wrong
 * answer is refused before anything else is read, with an error that says how to supply
 * the token. Until then the peer is a stranger: its join is read with {@link #JOIN_LIMITS}
 * (a header of a few KiB and no payload, so announcing a gigabyte costs the head nothing),
 * it is cut off if the handshake is not done within {@link #HANDSHAKE_MILLIS}, and
 * {@link Strangers} bounds how many such peers there are per address and in total.
 */
public final class HeadGate {
    /** From accept to a verified join: a node needs one round trip and an HMAC; a peer that holds the door waits out this. */
    static final long HANDSHAKE_MILLIS = 2_000;
    /** What a join may be: a header (the node's resources and facts are ~2 KiB) and no payload. */
    public static final FrameLimits JOIN_LIMITS = new FrameLimits(16 * 1024, 0);
    private static final Logger LOG = Logger.getLogger(HeadGate.class.getName());

    private final HeadServices head;
    private final TokenAuth auth;
    private final Heartbeat heartbeat;
    private final Pulse pulse;
    private final Strangers strangers;

    /** {@code maxConnections}: the TCP listener's limit, of which strangers may hold a quarter ({@link Strangers}). */
    public HeadGate(HeadServices head, TokenAuth auth, Heartbeat heartbeat, int maxConnections) {
        this.strangers = Strangers.forListener(maxConnections);
        this.head = head;
        this.auth = auth;
        this.heartbeat = heartbeat;
        this.pulse = new Pulse(heartbeat, "heartbeats");
    }

    /** Stops the heartbeat clock (daemon shutdown). */
    public void close() {
        pulse.close();
    }

    public void serve(Connection connection) {
        strangers.admit(connection, Strangers.sourceOf(connection.peer()));
        LinkMessage.Join join;
        try {
            join = readJoin(connection, challenge(connection));
        } finally {
            strangers.leave(connection);
        }
        if (join != null) admit(connection, join);
    }

    /** Sends the challenge; returns its nonce. */
    private String challenge(Connection connection) {
        String nonce = TokenAuth.newNonce();
        connection.send(LinkCodec.encode(new LinkMessage.Challenge(nonce, Protocol.VERSION, auth.enabled())));
        return nonce;
    }

    /**
     * The peer's first frame if it is a join with the right answer to {@code nonce}, else
     * null (the peer was refused or went away).
     */
    private LinkMessage.Join readJoin(Connection connection, String nonce) {
        var deadline = connection.closeUnlessCancelled(HANDSHAKE_MILLIS);
        Frame first;
        try {
            first = connection.readFirst(JOIN_LIMITS);
        } catch (FrameException e) {
            refuse(connection, -1, "refused before authentication: " + e.getMessage() + ". A join is one header of at "
                    + "most " + JOIN_LIMITS.maxHeaderBytes() + " bytes and carries no payload.");
            return null;
        } catch (IOException e) {
            return null;
        } finally {
            deadline.cancel();
        }
        if (first == null) return null;
        LinkMessage.Join join = LinkCodec.join(first);
        if (join == null) {
            refuse(connection, first.header().path("rid").asLong(-1), "expected 'join' as the first frame on the head's "
                    + "TCP port; drivers connect to the beam daemon on their own machine (start one there with "
                    + "`ray start --address HEAD:PORT`)");
            return null;
        }
        if (!auth.verify(nonce, join.auth())) {
            refuse(connection, join.rid(), "authentication failed: " + (join.auth() != null ? "wrong" : "missing")
                    + " cluster token. Give the joining node the head's token with RAY_AUTH_TOKEN=<token>, "
                    + "RAY_AUTH_TOKEN_PATH=<file> or --auth-token-path <file> (the head keeps it in "
                    + "<temp-dir>/session_latest/" + TokenAuth.TOKEN_FILE + ")");
            LOG.warning("refused a join from " + connection.peer() + ": bad token");
            return null;
        }
        return join;
    }

    /** Takes in a node whose join proved the token. */
    private void admit(Connection connection, LinkMessage.Join join) {
        long rid = join.rid();
        if (join.proto() != Protocol.VERSION) {
            refuse(connection, rid, "protocol version mismatch: the head speaks " + Protocol.VERSION
                    + ", the joining node speaks " + join.proto() + ". Install the same beam version on every node.");
            return;
        }
        String nodeId = join.nodeId();
        String ip = join.nodeIp();
        if (!Ids.isHex(nodeId, 56) || ip.isEmpty()) {
            refuse(connection, rid, "join: node_id (56 hex) and node_ip are required");
            return;
        }
        if (join.badResources() != null) {
            refuse(connection, rid, join.badResources());
            return;
        }
        Resources resources;
        Map<String, NodeAccelerator> accelerators;
        try {
            resources = Resources.of(join.resources(), JoinCodec.RESOURCES);
            accelerators = NodeAccelerator.of(join.accelerators());
            Labels.checked(join.labels());
        } catch (IllegalArgumentException e) {
            refuse(connection, rid, e.getMessage());
            return;
        }
        HeadLinkToMember link = new HeadLinkToMember(connection, head, nodeId, ip, join.sessionDir(), heartbeat, pulse);
        // before addNode: adding the node may place waiting actors on it at once, and the node
        // reads the first frame after its join as the reply
        connection.send(LinkCodec.encode(new LinkMessage.Welcome(rid, head.headNodeId(), head.cluster().namespace(),
                heartbeat.periodMillis(), heartbeat.timeoutMillis())));
        Node node = new Node(nodeId, ip, join.hostname() != null ? join.hostname() : ip, false, resources,
                accelerators, join.labels(), link).withFacts(join.facts());
        head.cluster().addNode(node);
        LOG.info("node " + ip + " (" + nodeId + ") joined with " + resources);
        link.run(node);
    }

    private static void refuse(Connection connection, long rid, String message) {
        connection.send(LinkCodec.encode(new LinkMessage.Refused(rid, message)));
        connection.closeAfterFlush();
    }
}
