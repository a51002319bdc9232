package beam.link.member;

import beam.cluster.SpawnSpec;
import beam.codec.Frame;
import beam.codec.FrameException;
import beam.connection.Connection;
import beam.connection.Listener;
import beam.connection.ReaderLoop;
import beam.link.BlockingReader;
import beam.link.Heartbeat;
import beam.link.LinkFrame;
import beam.link.Pulse;
import beam.protocol.LinkCodec;
import beam.protocol.LinkMessage;
import beam.protocol.LinkMessage.ToNode;
import beam.protocol.Request;
import beam.protocol.RequestCodec;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * A joined node's end of its link to the head. Every local client (driver or actor worker)
 * is relayed up it, tagged with a client id, and the head's answers come back the same way;
 * the head's orders (start, kill) go to the node it runs on ({@link MemberServices}), and that
 * node's actor events go back up through {@link #started}, {@link #exited} and the rest.
 *
 * <p>States of a link at a joined node: joining ({@link MemberDialer}: connect, answer the
 * challenge, join; any failure ends the start with the reason), then joined from this
 * link's construction until the first of:
 * {@link #leave} (this node stops: it says {@code node_leave}, then {@link #close}), or lost
 * (the link closed or failed, or the head was silent past the node timeout), which is told
 * to {@code onLost} once, with the reason, and not after {@code leave}.
 *
 * <p>Threads: the head's frames arrive in order on one thread (the unix listener's reader loop
 * for plain TCP, a platform thread of its own for TLS, whose reads block), which must not
 * block; local clients' frames on the reader loop. Sends never wait (Connection).
 */
public final class MemberLinkToHead implements ReaderLoop.Handler {
    private static final Logger LOG = Logger.getLogger(MemberLinkToHead.class.getName());
    private static final String METRICS = RequestCodec.op(Request.Metrics.class);

    private final MemberDialer.Joined joined;
    private final Connection head;
    private final Heartbeat heartbeat;
    private final Heartbeat.LastSeen lastSeen = new Heartbeat.LastSeen();
    private final Consumer<String> onLost;
    private final Map<Long, Connection> clients = new ConcurrentHashMap<>();
    private final AtomicLong nextClient = new AtomicLong(1);
    private final Pulse pulse;
    private final Consumer<ToNode> handler = this::handle; // made once, not per frame
    private volatile boolean leaving;
    private final AtomicBoolean lost = new AtomicBoolean();
    private MemberServices node;

    public MemberLinkToHead(MemberDialer.Joined joined, Heartbeat heartbeat, Consumer<String> onLost) {
        this.joined = joined;
        this.head = joined.connection();
        this.heartbeat = heartbeat;
        this.onLost = onLost;
        this.pulse = new Pulse(heartbeat, "heartbeat");
    }

    /** The node that runs the actors the head places here and keeps its clients' metrics; before {@link #startReading}. */
    public void attach(MemberServices node) {
        this.node = node;
    }

    /**
     * Starts reading the head and beating. A plain link is read by {@code unixListener}'s
     * reader loop, so that a call relayed to a worker and that worker's result wake one thread,
     * not two.
     */
    public void startReading(Listener unixListener) throws IOException {
        if (joined.plainChannel() != null) {
            unixListener.alsoRead(head, joined.plainChannel(), head.takeBuffered(), this);
        } else {
            Thread.ofPlatform().daemon().name("head link").start(() -> BlockingReader.feed(head, this));
        }
        pulse.add(this::beat);
    }

    public void send(LinkMessage.ToHead message) {
        head.send(LinkCodec.encode(message));
    }

    /** How long the head has been silent. */
    public long silentMillis() {
        return lastSeen.silentMillis();
    }

    /** This node stops: tell the head (so it drops the node at once), and end the local clients' connections. */
    public void leave() {
        leaving = true;
        if (head.isOpen()) send(new LinkMessage.NodeLeave());
        for (Connection c : clients.values()) c.closeAfterFlush();
    }

    /** Ends the link once what is queued is written, and stops the heartbeat. */
    public void close() {
        head.closeAfterFlush();
        pulse.close();
    }

    // ------------------------------------------------------------------ the head's frames

    @Override
    public boolean onFrame(Frame frame) {
        lastSeen.touch();
        LinkFrame.handle(frame, LinkCodec::toNode, handler, "the head");
        return true;
    }

    @Override
    public void onEnd(Exception why) {
        lost(why == null ? "the head closed the link"
                : why instanceof FrameException ? "the head sent a malformed frame: " + why.getMessage()
                : "the link to the head failed: "
                + (why.getMessage() != null ? why.getMessage() : why.getClass().getSimpleName()));
    }

    private void handle(ToNode message) {
        switch (message) {
            case LinkMessage.Relayed r -> { // for a local client, which gets it without the tag
                Connection local = clients.get(r.cid());
                if (local != null) local.send(r.frame());
            }
            case LinkMessage.Ping p -> {
                if (p.t() != null) send(new LinkMessage.Pong(p.t()));
            }
            case LinkMessage.ClientClose c -> {
                Connection local = clients.get(c.client());
                if (local != null) local.closeAfterFlush();
            }
            case LinkMessage.StartActor s -> node.spawn(spawnSpec(s));
            case LinkMessage.KillActor k -> node.kill(k.actorId());
            case LinkMessage.Ask a -> node.answer(a.question()).whenComplete((answer, failure) -> {
                if (failure == null) send(new LinkMessage.AskAnswer(a.askId(), answer, null));
                else send(new LinkMessage.AskAnswer(a.askId(), null, why(failure)));
            });
            case LinkMessage.UnknownAsk a -> send(new LinkMessage.AskAnswer(a.askId(), null,
                    "this node does not answer '" + a.kind() + "' (a node of another beam version?)"));
        }
    }

    /** The error a failed answer sends back: the cause, not the future's wrapper. */
    static String why(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) t = t.getCause();
        return t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
    }

    private static SpawnSpec spawnSpec(LinkMessage.StartActor s) {
        return new SpawnSpec(s.actorId(), s.className(), s.acceleratorIds(), s.envVars(), s.context(), s.logToOwner(),
                s.ompThreads());
    }

    /** One heartbeat ({@link Pulse}): give up on a silent head, else ping it. */
    private boolean beat() {
        if (leaving) return false;
        long silent = lastSeen.silentMillis();
        if (silent > heartbeat.timeoutMillis()) {
            lost("no heartbeat from the head for " + silent + " ms");
            return false;
        }
        send(new LinkMessage.Ping(null));
        return true;
    }

    private void lost(String reason) {
        if (!leaving && lost.compareAndSet(false, true)) onLost.accept(reason);
    }

    // ------------------------------------------------------------------ local clients

    /**
     * The reader loop's handler for a local client of this node: its frames go to the head
     * tagged with its client id, on the loop's thread, which this must not block: a send on
     * the link never waits.
     */
    public ReaderLoop.Handler localClient(Connection local) {
        long cid = nextClient.getAndIncrement();
        clients.put(cid, local);
        send(new LinkMessage.ClientOpen(cid));
        return new ReaderLoop.Handler() {
            @Override
            public boolean onFrame(Frame frame) {
                if (frame.relay() == null && frame.op().equals(METRICS)) { // this node's own: kept here
                    try {
                        if (RequestCodec.parse(frame.header()) instanceof Request.Metrics m) {
                            node.recordMetrics(cid, m.metrics()); // logs what it refuses
                        }
                    } catch (Request.BadRequest e) {
                        LOG.warning("a local client's metrics were refused: " + e.getMessage());
                    }
                    return true;
                }
                send(new LinkMessage.Relayed(cid, frame));
                return true;
            }

            @Override
            public void onEnd(Exception why) {
                if (why instanceof FrameException) LOG.warning("closing a local client: " + why.getMessage());
                else if (why != null) LOG.fine(() -> "local client went away: " + why.getMessage());
                node.sourceGone(cid);
                clients.remove(cid);
                send(new LinkMessage.ClientClose(cid));
            }
        };
    }

    // ------------------------------------------------------------------ this node's actor events, up to the head

    public void started(String actorId, long pid) {
        send(new LinkMessage.ActorStarted(actorId, pid));
    }

    public void startFailed(String actorId, String detail) {
        send(new LinkMessage.ActorStartFailed(actorId, detail));
    }

    public void exited(String actorId, int exitCode, List<String> stderrTail, long oomKills) {
        send(new LinkMessage.ActorExited(actorId, exitCode, stderrTail, oomKills));
    }

    public void log(String actorId, Frame logFrame) {
        send(new LinkMessage.ActorLog(actorId, logFrame));
    }
}
