package beam.link.head;

import beam.cluster.ActorRecord;
import beam.cluster.Cluster;
import beam.cluster.Node;
import beam.cluster.NodeControl;
import beam.cluster.SpawnSpec;
import beam.codec.Frame;
import beam.codec.FrameException;
import beam.connection.Connection;
import beam.connection.ReaderLoop;
import beam.link.BlockingReader;
import beam.link.Heartbeat;
import beam.link.LinkFrame;
import beam.link.Pulse;
import beam.protocol.LinkCodec;
import beam.protocol.LinkMessage;
import beam.protocol.LinkMessage.ToHead;
import beam.util.NodeQuestion;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * The head's end of one joined node's link. It is that node's {@link NodeControl} (actor
 * starts and kills go down as {@code start_actor} / {@code kill_actor}), and it hosts a
 * client of the head ({@link HeadServices.RelayedClient}) for every client of that node (drivers and actor workers), whose frames
 * arrive tagged with a client id. The node's process events come up as link ops.
 *
 * <p>States of a link at the head: a stranger ({@link HeadGate}: challenged, refused unless
 * its join proves the token within the handshake's time), then joined from this link's
 * construction until lost, once, by the first of: the node's {@code node_leave}, the end or
 * failure of the connection, or a heartbeat silence past the timeout ({@link #declareLost});
 * then its clients are gone and the cluster hears {@code onNodeLost}.
 *
 * <p>Threads: {@link #run()} reads on the connection's thread, in order; sends
 * never wait (Connection). {@code clients} is concurrent because the cluster pushes from any thread.
 */
public final class HeadLinkToMember implements NodeControl, ReaderLoop.Handler {
    private static final Logger LOG = Logger.getLogger(HeadLinkToMember.class.getName());

    private final Connection connection;
    private final HeadServices head;
    private final Cluster cluster;
    private final String nodeId;
    private final String nodeIp;
    private final String peerName; // "node IP", as log lines name it
    private final String sessionDir;
    private final Heartbeat heartbeat;
    private final Heartbeat.LastSeen lastSeen = new Heartbeat.LastSeen();
    private final Map<Long, HeadServices.RelayedClient> clients = new ConcurrentHashMap<>();
    private final AtomicBoolean lost = new AtomicBoolean();
    private final PendingAsks asks;
    private final Pulse pulse;
    private final Consumer<ToHead> handler = this::handle; // made once, not per frame
    private boolean left; // read thread only
    private Node node; // read thread only: set by run()

    HeadLinkToMember(Connection connection, HeadServices head, String nodeId, String nodeIp, String sessionDir,
               Heartbeat heartbeat, Pulse pulse) {
        this.pulse = pulse;
        this.connection = connection;
        this.head = head;
        this.cluster = head.cluster();
        this.nodeId = nodeId;
        this.nodeIp = nodeIp;
        this.peerName = "node " + nodeIp;
        this.sessionDir = sessionDir;
        this.heartbeat = heartbeat;
        this.asks = new PendingAsks(peerName);
    }

    /** Reads the link of {@code node} until it closes, then declares the node lost (unless it left cleanly). */
    void run(Node node) {
        this.node = node;
        pulse.add(this::beat);
        BlockingReader.feed(connection, this);
    }

    @Override
    public boolean onFrame(Frame frame) {
        lastSeen.touch();
        LinkFrame.handle(frame, LinkCodec::toHead, handler, peerName);
        return !left;
    }

    @Override
    public void onEnd(Exception why) {
        declareLost(left ? "it left the cluster (`ray stop` on that node)"
                : why == null ? "its beam daemon's connection closed (the daemon or its host died)"
                : why instanceof FrameException ? "its link sent a malformed frame (" + why.getMessage() + ")"
                : "its link failed (" + why.getMessage() + ")");
    }

    private void handle(ToHead message) {
        switch (message) {
            case LinkMessage.Relayed r -> {
                HeadServices.RelayedClient client = clients.get(r.cid());
                if (client != null) client.onFrame(r.frame());
            }
            case LinkMessage.Ping p -> { }
            case LinkMessage.Pong p -> { // the answer to our ping, carrying the time we sent it
                if (p.t() != 0) node.heardRtt(Math.max(0, (System.nanoTime() - p.t()) / 1_000)); // no lock: Node
            }
            case LinkMessage.HttpPorts p -> cluster.onHttpPorts(nodeId, p.ports());
            case LinkMessage.Telemetry t -> cluster.onTelemetry(nodeId, t.sample());
            case LinkMessage.ClientOpen c -> clients.put(c.client(),
                    head.openClient(nodeId, nodeIp, sessionDir, lineTo(c.client())));
            case LinkMessage.ClientClose c -> {
                HeadServices.RelayedClient s = clients.remove(c.client());
                if (s != null) s.onClosed();
            }
            case LinkMessage.ActorStarted a -> cluster.onActorProcessStarted(a.actorId(), a.pid());
            case LinkMessage.ActorStartFailed a -> cluster.onActorStartFailed(a.actorId(), a.detail());
            case LinkMessage.ActorExited a -> cluster.onActorExited(a.actorId(), a.code(), a.tail(), a.oomKills());
            case LinkMessage.ActorLog l -> cluster.onActorLog(l.actorId(), head.actorOutput(l.frame()));
            case LinkMessage.NodeVersions v -> head.nodeVersions(nodeId, v.versions());
            case LinkMessage.AskAnswer a -> asks.answered(a);
            case LinkMessage.NodeLeave l -> left = true;
        }
    }

    private void send(LinkMessage message) {
        connection.send(LinkCodec.encode(message));
    }

    private HeadServices.ClientLine lineTo(long cid) {
        return new HeadServices.ClientLine() {
            @Override
            public void send(Frame frame) {
                HeadLinkToMember.this.send(new LinkMessage.Relayed(cid, frame));
            }

            @Override
            public void close() {
                HeadLinkToMember.this.send(new LinkMessage.ClientClose(cid));
            }
        };
    }

    /**
     * One heartbeat ({@link Pulse}): declare the node lost after too long a silence, else ping it.
     * The loss is handled on a thread of its own, so the shared clock keeps pinging the others.
     */
    private boolean beat() {
        if (lost.get()) return false;
        long silent = lastSeen.silentMillis();
        if (silent > heartbeat.timeoutMillis()) {
            Thread.ofVirtual().name("node lost " + nodeIp).start(() -> {
                declareLost("it sent no heartbeat for " + silent + " ms (the host died or its network was cut)");
                connection.close();
            });
            return false;
        }
        send(new LinkMessage.Ping(System.nanoTime())); // the node's pong brings it back: the round trip
        return true;
    }

    private void declareLost(String reason) {
        if (!lost.compareAndSet(false, true)) return;
        LOG.warning("node " + nodeIp + " (" + nodeId + ") is lost: " + reason);
        connection.close();
        head.clientsGone(new ArrayList<>(clients.values()));
        clients.clear();
        asks.lost(reason);
        cluster.onNodeLost(nodeId, reason);
    }

    // ------------------------------------------------------------------ NodeControl

    @Override
    public void startActor(ActorRecord actor, Map<String, List<String>> deviceIds) {
        SpawnSpec spec = SpawnSpec.of(actor, deviceIds);
        send(new LinkMessage.StartActor(spec.actorId(), spec.className(), deviceIds, spec.envVars(), spec.context(),
                spec.logToOwner(), spec.ompThreads()));
    }

    @Override
    public <A extends NodeQuestion.Answer> CompletableFuture<A> ask(NodeQuestion<A> question) {
        return asks.ask(question, this::send);
    }

    @Override
    public void killActor(ActorRecord actor) {
        send(new LinkMessage.KillActor(actor.id()));
    }
}
