package beam.daemon;

import beam.auth.TokenAuth;
import beam.cluster.ProcessContext;
import beam.codec.Frame;
import beam.codec.FrameCodec;
import beam.codec.FrameException;
import beam.connection.Connection;
import beam.connection.Listener;
import beam.dispatch.Session;
import beam.link.Heartbeat;
import beam.link.LinkOps;
import beam.link.Pulse;
import beam.node.ActorEvents;
import beam.node.NodeAgent;
import beam.node.SpawnSpec;
import beam.protocol.Frames;
import beam.util.Ids;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * The daemon of a node that joined a head (`ray start --address HEAD:PORT`). It keeps no
 * cluster state: every local client (driver or actor worker) is relayed to the head over
 * the one TCP link, tagged with a client id, and the head's answers come back the same
 * way. It runs the actor processes the head places here and reports their events.
 *
 * <p>If the head is lost (link closed, or silent past the node timeout) it stops its actors
 * and its clients and exits, so no GPU stays held by an orphan.
 */
public final class MemberDaemon implements RunningDaemon, ActorEvents {
    private static final Logger LOG = Logger.getLogger(MemberDaemon.class.getName());
    private static final long ACTOR_EXIT_WAIT_MILLIS = 3_000;
    private static final long JOIN_TIMEOUT_MILLIS = 15_000;

    private final DaemonConfig config;
    private final SessionDir session;
    private final String nodeId = Ids.nodeId();
    private final String nodeIp;
    private final NodeAgent agent;
    private final Map<Long, Connection> clients = new ConcurrentHashMap<>();
    private final AtomicLong nextClient = new AtomicLong(1);
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final Heartbeat heartbeat;
    private final Heartbeat.LastSeen lastSeen = new Heartbeat.LastSeen();
    private Pulse pulse;
    private Connection head;
    /** The link's socket when it is plain TCP (then the reader loop reads it), else null (TLS). */
    private SocketChannel headChannel;
    private final java.util.concurrent.CompletableFuture<com.fasterxml.jackson.databind.JsonNode> pythonVersions;
    private java.net.ServerSocket probeListener;
    /** This host's accelerators, probed once at construction (detection may run a vendor tool). */
    private final Map<String, beam.cluster.NodeAccelerator> accelerators;
    private Listener unixListener;
    private final beam.metrics.UserMetrics userMetrics = new beam.metrics.UserMetrics();
    private beam.http.NodeHttp http;
    private volatile String lostReason; // why the head is lost, once it is

    public MemberDaemon(DaemonConfig config, SessionDir session) {
        this.config = config;
        this.session = session;
        this.pythonVersions = NodeFacts.pythonVersions(config.environment());
        String host = config.headAddress().substring(0, config.headAddress().lastIndexOf(':'));
        this.nodeIp = config.nodeIp() != null ? config.nodeIp() : HostProbe.routeAddress(host);
        this.accelerators = HostProbe.accelerators(config);
        this.agent = new NodeAgent(this, session.socketPath(), session.logsDir(), accelerators,
                beam.node.ProcessCap.of(config.maxActorProcesses()));
        this.heartbeat = config.heartbeat();
    }

    /** Connects and authenticates to the head, joins, then serves local clients. */
    public MemberDaemon start() throws IOException {
        FrameCodec codec = new FrameCodec(config.limits(), beam.codec.PayloadBudget.forThisHeap()); // one budget for all its connections
        String address = config.headAddress();
        int colon = address.lastIndexOf(':');
        InetSocketAddress target = new InetSocketAddress(address.substring(0, colon),
                Integer.parseInt(address.substring(colon + 1)));
        head = config.tls() == null ? connectPlain(target, codec) : connectTls(target, codec);
        var deadline = head.closeUnlessCancelled(JOIN_TIMEOUT_MILLIS);
        try {
            join();
        } finally {
            deadline.cancel();
        }
        unixListener = Listener.unix(session.socketPath(), codec, config.maxConnections(), this::relayLocalClient).start();
        session.writeNodeJson(nodeId, nodeIp, address, ProcessHandle.current().pid());
        if (headChannel != null) {
            // Plain TCP: the thread that reads the local clients reads the head's frames too, so
            // a call relayed to a worker and that worker's result wake one thread, not two.
            unixListener.alsoRead(head, headChannel, head.takeBuffered(), headHandler());
        } else {
            // TLS cannot be read through a selector: a thread of its own. A platform one, since
            // its reads block (they would pin a virtual thread's carrier).
            Thread.ofPlatform().daemon().name("head link").start(this::linkLoop);
        }
        pulse = new Pulse(heartbeat, "heartbeat");
        pulse.add(this::beat);
        pythonVersions.thenAccept(py -> {
            ObjectNode h = Frames.header("node_versions");
            h.set("versions", py);
            head.send(new Frame(h));
        });
        if (config.http() != null) startHttp(config.http());
        LOG.info("joined the head at " + address + " as node " + nodeIp + " (" + nodeId + ")");
        return this;
    }

    /** What this node's health probes say: null while the head answers and nothing is stopping. */
    private String healthProblem() {
        if (lostReason != null) return "lost the head at " + config.headAddress() + " (" + lostReason + "); exiting";
        if (stopping.get()) return "the beam daemon is shutting down";
        long silent = lastSeen.silentMillis();
        if (silent > heartbeat.timeoutMillis()) {
            return "no heartbeat from the head at " + config.headAddress() + " for " + silent + " ms";
        }
        return null;
    }

    /** The HTTP face, bound off the start path; its ports go into node.json and to the head. */
    private void startHttp(beam.http.HttpConfig httpConfig) {
        http = new beam.http.NodeHttp(httpConfig, config.authToken(), this::healthProblem, null,
                new beam.metrics.NodeMetrics(userMetrics, this::healthProblem, null));
        http.startInBackground((ports, error) -> {
            ObjectNode facts = Frames.header("node_facts");
            ports.forEach(facts.putObject("http_ports")::put);
            head.send(new Frame(facts));
            try {
                session.writeHttp(ports, error);
            } catch (IOException e) {
                LOG.warning("cannot add the HTTP ports to node.json: " + e.getMessage());
            }
        });
    }

    private Connection connectPlain(InetSocketAddress target, FrameCodec codec) throws IOException {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.INET);
        try {
            channel.connect(target);
        } catch (IOException e) {
            channel.close();
            throw unreachable(e);
        }
        channel.socket().setTcpNoDelay(true);
        // Non-blocking like the unix socket's channels: what this node sends the head (results of
        // the head's calls, relayed client frames) is written by the thread that sends it when
        // the link is free, not handed to a writer thread (Connection's class doc). Once joined,
        // the unix listener's reader loop reads it (start); its writer is a platform thread.
        headChannel = channel;
        return new Connection(beam.connection.Transport.nonBlocking(channel), codec, "head " + config.headAddress(),
                Thread.ofPlatform().daemon());
    }

    private Connection connectTls(InetSocketAddress target, FrameCodec codec) throws IOException {
        javax.net.ssl.SSLSocket socket = (javax.net.ssl.SSLSocket) config.tls().context().getSocketFactory().createSocket();
        try {
            socket.connect(target, 10_000);
        } catch (IOException e) {
            socket.close();
            throw unreachable(e);
        }
        socket.setTcpNoDelay(true);
        try {
            socket.startHandshake();
        } catch (IOException e) {
            socket.close();
            throw new IOException("TLS handshake with the head at " + config.headAddress() + " failed: " + e.getMessage()
                    + ". Both ends need certificates signed by the same CA (--tls-cert, --tls-key, --tls-ca), and the "
                    + "head must be started with TLS too.");
        }
        return new Connection(beam.connection.Transport.of(socket), codec, "head " + config.headAddress());
    }

    private IOException unreachable(IOException e) {
        return new IOException("cannot reach the head at " + config.headAddress() + ": " + e.getMessage()
                + ". Check the address, that `ray start --head` runs there, and that the port is open.");
    }

    private void join() throws IOException {
        Frame challenge = readOrFail("the head's challenge");
        if (!challenge.op().equals("challenge")) throw new IOException("the head at " + config.headAddress()
                + " did not send a challenge; is it a beam head?");
        ObjectNode join = Frames.header("join");
        join.put("rid", 1);
        join.put("proto", Session.PROTOCOL_VERSION);
        if (challenge.header().path("auth").asText().equals("token")) {
            if (config.authToken() == null) {
                head.close();
                throw new IOException("the head requires its cluster token: set RAY_AUTH_TOKEN=<token>, "
                        + "RAY_AUTH_TOKEN_PATH=<file> or --auth-token-path <file> (the head keeps it in "
                        + "<temp-dir>/session_latest/" + TokenAuth.TOKEN_FILE + ")");
            }
            join.put("auth", new TokenAuth(config.authToken()).answer(challenge.header().path("nonce").asText()));
        }
        join.put("node_id", nodeId);
        join.put("node_ip", nodeIp);
        join.put("hostname", HostProbe.hostname());
        join.put("session_dir", session.dir().toString());
        join.set("resources", HostProbe.resources(config, nodeIp, false, accelerators).toJson());
        ObjectNode facts = NodeFacts.collect(nodeIp, accelerators, config.environment());
        try {
            probeListener = beam.node.Prober.listen(nodeIp);
            facts.put("probe_port", probeListener.getLocalPort());
        } catch (IOException e) {
            facts.put("probe_port", -1);
            facts.put("probe_error", "cannot listen on the node IP " + nodeIp + ": " + e.getMessage());
        }
        join.set("facts", facts);
        join.set("accelerators", beam.cluster.NodeAccelerator.toJson(accelerators));
        head.send(new Frame(join));
        Frame reply = readOrFail("the head's answer to join");
        if (!reply.header().path("ok").asBoolean()) {
            head.close();
            throw new IOException("the head refused to let this node join: " + reply.header().path("error").asText());
        }
        lastSeen.touch();
    }

    private Frame readOrFail(String what) throws IOException {
        try {
            Frame f = head.read();
            if (f == null) {
                throw new IOException("the head closed the connection before " + what
                        + (config.tls() == null ? " (if the head uses TLS, start this node with --tls-cert, --tls-key and "
                        + "--tls-ca as well)" : ""));
            }
            return f;
        } catch (FrameException e) {
            throw new IOException("bad frame from the head while waiting for " + what + ": " + e.getMessage());
        }
    }

    /**
     * A local client of this node: its frames go to the head tagged with its client id, read
     * on the unix listener's loop thread (ReaderLoop), which this must not block: a send on
     * the link never waits.
     */
    private beam.connection.ReaderLoop.Handler relayLocalClient(Connection local) {
        long cid = nextClient.getAndIncrement();
        clients.put(cid, local);
        head.send(LinkOps.clientEvent("client_open", cid));
        return new beam.connection.ReaderLoop.Handler() {
            @Override
            public boolean onFrame(Frame frame) {
                if (frame.relay() == null && frame.op().equals("metrics")) { // this node's own: kept here
                    userMetrics.record(cid, frame.header().get("metrics")); // logs what it refuses
                    return true;
                }
                head.send(LinkOps.tag(frame, cid));
                return true;
            }

            @Override
            public void onEnd(Exception why) {
                if (why instanceof FrameException) LOG.warning("closing a local client: " + why.getMessage());
                else if (why != null) LOG.fine(() -> "local client went away: " + why.getMessage());
                userMetrics.sourceGone(cid);
                clients.remove(cid);
                head.send(LinkOps.clientEvent("client_close", cid));
            }
        };
    }

    /** The head's frames as the reader loop hands them over; runs on its thread, so never blocks. */
    private beam.connection.ReaderLoop.Handler headHandler() {
        return new beam.connection.ReaderLoop.Handler() {
            @Override
            public boolean onFrame(Frame frame) {
                lastSeen.touch();
                try {
                    handleFromHead(frame);
                } catch (RuntimeException e) { // one bad frame must not cut the node off
                    LOG.log(java.util.logging.Level.SEVERE, "bug: handling the head's '" + frame.op() + "' failed", e);
                }
                return true;
            }

            @Override
            public void onEnd(Exception why) {
                headLost(why == null ? "the head closed the link"
                        : why instanceof FrameException ? "the head sent a malformed frame: " + why.getMessage()
                        : "the link to the head failed: "
                        + (why.getMessage() != null ? why.getMessage() : why.getClass().getSimpleName()));
            }
        };
    }

    /** The head's frames on a TLS link, read on a thread of its own. */
    private void linkLoop() {
        String reason = "the head closed the link";
        try {
            Frame frame;
            while ((frame = head.read()) != null) {
                lastSeen.touch();
                handleFromHead(frame);
            }
        } catch (FrameException e) {
            reason = "the head sent a malformed frame: " + e.getMessage();
        } catch (IOException e) {
            reason = "the link to the head failed: " + e.getMessage();
        }
        headLost(reason);
    }

    private void handleFromHead(Frame frame) {
        if (LinkOps.isRelayed(frame)) { // for a local client, which gets it without the tag
            Connection local = clients.get(LinkOps.cid(frame));
            if (local != null) local.send(LinkOps.untag(frame));
            return;
        }
        ObjectNode h = frame.header();
        switch (frame.op()) {
            case "ping" -> {
                Frame pong = LinkOps.pong(h);
                if (pong != null) head.send(pong);
            }
            case "client_close" -> {
                Connection local = clients.get(h.path("client").asLong());
                if (local != null) local.closeAfterFlush();
            }
            case "start_actor" -> agent.spawn(spawnSpec(h));
            case "kill_actor" -> agent.kill(h.path("actor_id").asText());
            case "probe" -> {
                long id = h.path("probe_id").asLong();
                beam.node.Prober.probe(h.path("targets")).thenAccept(results -> {
                    ObjectNode r = Frames.header("probe_result");
                    r.put("probe_id", id);
                    r.set("results", results);
                    head.send(new Frame(r));
                });
            }
            default -> LOG.warning("the head sent unknown link op '" + frame.op() + "'");
        }
    }

    private static SpawnSpec spawnSpec(ObjectNode h) {
        Map<String, List<String>> devices = new LinkedHashMap<>();
        h.path("accelerator_ids").fields().forEachRemaining(e -> {
            List<String> ids = new ArrayList<>();
            e.getValue().forEach(g -> ids.add(g.asText()));
            devices.put(e.getKey(), ids);
        });
        Map<String, String> env = new LinkedHashMap<>();
        h.path("env_vars").fields().forEachRemaining(e -> env.put(e.getKey(), e.getValue().asText()));
        ObjectNode ctx = (ObjectNode) h.path("context");
        List<String> sysPath = new ArrayList<>();
        ctx.path("sysPath").forEach(p -> sysPath.add(p.asText()));
        ProcessContext context = new ProcessContext(ctx.path("python").asText(null), ctx.path("cwd").asText(null), sysPath);
        return new SpawnSpec(h.path("actor_id").asText(), h.path("class_name").asText(), devices, env, context,
                h.path("log_to_owner").asBoolean(true), h.path("omp_threads").asInt(1));
    }

    /** One heartbeat ({@link Pulse}): give up on a silent head, else ping it. */
    private boolean beat() {
        if (stopping.get()) return false;
        if (lastSeen.silentMillis() > heartbeat.timeoutMillis()) {
            headLost("no heartbeat from the head for " + lastSeen.silentMillis() + " ms");
            return false;
        }
        head.send(LinkOps.op("ping"));
        return true;
    }

    private void headLost(String reason) {
        if (stopping.get()) return;
        lostReason = reason;
        LOG.severe("lost the head (" + reason + "): stopping this node's actors and exiting");
        // non-zero: a pod or a Slurm step restarts (or fails) rather than looking finished
        exitCode = HEAD_LOST_EXIT;
        System.err.println("beam: lost the head (" + reason + "); this node stopped its actors and exits with status "
                + HEAD_LOST_EXIT + ".");
        requestShutdown();
    }

    private void requestShutdown() {
        if (stopping.get()) return;
        Thread.ofPlatform().name("shutdown").start(this::shutdown);
    }

    @Override
    public void shutdown() {
        if (!stopping.compareAndSet(false, true)) {
            try {
                stopped.await();
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
            return;
        }
        if (head != null && head.isOpen()) head.send(new Frame(Frames.header("node_leave")));
        if (unixListener != null) unixListener.close();
        if (probeListener != null) {
            try {
                probeListener.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        for (Connection c : clients.values()) c.closeAfterFlush();
        agent.killAll();
        agent.awaitNoneRunning(ACTOR_EXIT_WAIT_MILLIS);
        session.removeNodeJson();
        if (unixListener != null) unixListener.closeClients();
        if (head != null) head.closeAfterFlush();
        if (pulse != null) pulse.close();
        if (http != null) http.close(); // last: the health probes say why until here
        LOG.info("beam daemon stopped");
        stopped.countDown();
    }

    @Override
    public void awaitStopped() throws InterruptedException {
        stopped.await();
    }

    /** The exit status of a joined node that stopped because its head went away. */
    public static final int HEAD_LOST_EXIT = 3;
    private volatile int exitCode;

    @Override
    public int exitCode() {
        return exitCode;
    }

    @Override
    public String nodeIp() {
        return nodeIp;
    }

    @Override
    public String gcsAddress() {
        return config.headAddress();
    }

    @Override
    public String joinHint() {
        return "ray start --address='" + config.headAddress() + "' (with the head's token)";
    }

    // ------------------------------------------------- ActorEvents: up the link to the head

    @Override
    public void started(String actorId, long pid) {
        ObjectNode h = Frames.header("actor_started");
        h.put("actor_id", actorId);
        h.put("pid", pid);
        head.send(new Frame(h));
    }

    @Override
    public void startFailed(String actorId, String detail) {
        ObjectNode h = Frames.header("actor_start_failed");
        h.put("actor_id", actorId);
        h.put("detail", detail);
        head.send(new Frame(h));
    }

    @Override
    public void exited(String actorId, int exitCode, List<String> stderrTail, long oomKills) {
        ObjectNode h = Frames.header("actor_exited");
        h.put("actor_id", actorId);
        h.put("code", exitCode);
        h.put("oom_kills", oomKills);
        ArrayNode tail = h.putArray("tail");
        stderrTail.forEach(tail::add);
        head.send(new Frame(h));
    }

    @Override
    public void log(String actorId, Frame logFrame) {
        logFrame.header().put("op", "actor_log");
        head.send(logFrame);
    }
}
