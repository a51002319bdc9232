package beam.daemon;

import beam.cluster.NodeAccelerator;
import beam.codec.FrameCodec;
import beam.codec.PayloadBudget;
import beam.connection.Listener;
import beam.http.HttpConfig;
import beam.http.NodeHttp;
import beam.link.HeadDialer;
import beam.link.HeadLink;
import beam.metrics.NodeMetrics;
import beam.metrics.UserMetrics;
import beam.node.NodeAgent;
import beam.node.ProcessCap;
import beam.node.Prober;
import beam.protocol.LinkMessage;
import beam.protocol.Protocol;
import beam.util.Ids;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Logger;

/**
 * The daemon of a node that joined a head (`ray start --address HEAD:PORT`): wires the
 * link to the head ({@link HeadDialer}, {@link HeadLink}), the actor processes the head
 * places here ({@link NodeAgent}), the unix listener for local clients and the HTTP face.
 * It keeps no cluster state.
 *
 * <p>If the head is lost it stops its actors and its clients and exits with
 * {@link #HEAD_LOST_EXIT}, so no GPU stays held by an orphan.
 */
public final class MemberDaemon implements RunningDaemon {
    private static final Logger LOG = Logger.getLogger(MemberDaemon.class.getName());
    private static final long ACTOR_EXIT_WAIT_MILLIS = 3_000;
    /** The exit status of a joined node that stopped because its head went away. */
    public static final int HEAD_LOST_EXIT = 3;

    private final DaemonConfig config;
    private final SessionDir session;
    private final String nodeId = Ids.nodeId();
    private final String nodeIp;
    private final CompletableFuture<JsonNode> pythonVersions;
    /** This host's accelerators, probed once at construction (detection may run a vendor tool). */
    private final Map<String, NodeAccelerator> accelerators;
    private final UserMetrics userMetrics = new UserMetrics();
    private final StopPath stop;
    private HeadLink link;
    private NodeAgent agent;
    private ServerSocket probeListener;
    private Listener unixListener;
    private NodeHttp http;
    private volatile String lostReason; // why the head is lost, once it is
    private volatile int exitCode;

    public MemberDaemon(DaemonConfig config, SessionDir session) {
        this.config = config;
        this.session = session;
        this.pythonVersions = NodeFacts.pythonVersions(config.environment());
        String host = config.headAddress().substring(0, config.headAddress().lastIndexOf(':'));
        this.nodeIp = config.nodeIp() != null ? config.nodeIp() : HostProbe.routeAddress(host);
        this.accelerators = HostProbe.accelerators(config);
        this.stop = new StopPath(session, new Steps());
    }

    /** Connects and authenticates to the head, joins, then serves local clients. */
    public MemberDaemon start() throws IOException {
        FrameCodec codec = new FrameCodec(config.limits(), PayloadBudget.forThisHeap()); // one budget for all its connections
        HeadDialer dialer = new HeadDialer(config.headAddress(), config.tls() == null ? null : config.tls().context(),
                config.authToken());
        HeadDialer.Joined joined;
        try {
            joined = dialer.join(joinMessage(), codec);
        } catch (IOException e) {
            closeProbeListener();
            throw e;
        }
        link = new HeadLink(joined, config.heartbeat(), userMetrics, this::headLost);
        agent = new NodeAgent(link, session.socketPath(), session.logsDir(), accelerators,
                ProcessCap.of(config.maxActorProcesses()));
        link.attach(agent);
        unixListener = Listener.unix(session.socketPath(), codec, config.maxConnections(), link::localClient).start();
        session.writeNodeJson(nodeId, nodeIp, config.headAddress(), ProcessHandle.current().pid());
        link.startReading(unixListener);
        pythonVersions.thenAccept(py -> link.send(new LinkMessage.NodeVersions(py)));
        if (config.http() != null) startHttp(config.http());
        LOG.info("joined the head at " + config.headAddress() + " as node " + nodeIp + " (" + nodeId + ")");
        return this;
    }

    private LinkMessage.Join joinMessage() {
        ObjectNode facts = NodeFacts.collect(nodeIp, accelerators, config.environment());
        try {
            probeListener = Prober.listen(nodeIp);
            facts.put("probe_port", probeListener.getLocalPort());
        } catch (IOException e) {
            facts.put("probe_port", -1);
            facts.put("probe_error", "cannot listen on the node IP " + nodeIp + ": " + e.getMessage());
        }
        return new LinkMessage.Join(1, Protocol.VERSION, null, nodeId, nodeIp, HostProbe.hostname(),
                session.dir().toString(), HostProbe.resources(config, nodeIp, false, accelerators).toJson(),
                NodeAccelerator.toJson(accelerators), facts);
    }

    /** What this node's health probes say: null while the head answers and nothing is stopping. */
    private String healthProblem() {
        if (lostReason != null) return "lost the head at " + config.headAddress() + " (" + lostReason + "); exiting";
        if (stop.stopping()) return "the beam daemon is shutting down";
        long silent = link.silentMillis();
        if (silent > config.heartbeat().timeoutMillis()) {
            return "no heartbeat from the head at " + config.headAddress() + " for " + silent + " ms";
        }
        return null;
    }

    /** The HTTP face, bound off the start path; its ports go into node.json and to the head. */
    private void startHttp(HttpConfig httpConfig) {
        http = new NodeHttp(httpConfig, config.authToken(), this::healthProblem, null,
                new NodeMetrics(userMetrics, this::healthProblem, null));
        http.startInBackground((ports, error) -> {
            ObjectNode facts = JsonNodeFactory.instance.objectNode();
            ports.forEach(facts.putObject("http_ports")::put);
            link.send(new LinkMessage.NodeFacts(facts));
            try {
                session.writeHttp(ports, error);
            } catch (IOException e) {
                LOG.warning("cannot add the HTTP ports to node.json: " + e.getMessage());
            }
        });
    }

    private void headLost(String reason) {
        if (stop.stopping()) return;
        lostReason = reason;
        LOG.severe("lost the head (" + reason + "): stopping this node's actors and exiting");
        // non-zero: a pod or a Slurm step restarts (or fails) rather than looking finished
        exitCode = HEAD_LOST_EXIT;
        System.err.println("beam: lost the head (" + reason + "); this node stopped its actors and exits with status "
                + HEAD_LOST_EXIT + ".");
        stop.request();
    }

    private void closeProbeListener() {
        if (probeListener == null) return;
        try {
            probeListener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    /** This node's part of each step of {@link StopPath}. */
    private final class Steps implements StopPath.Steps {
        @Override
        public void stopAccepting() {
            if (link != null) link.leave();
            if (unixListener != null) unixListener.close();
            closeProbeListener();
        }

        @Override
        public void stopActors() {
            if (agent == null) return;
            agent.killAll();
            agent.awaitNoneRunning(ACTOR_EXIT_WAIT_MILLIS);
        }

        @Override
        public void closeConnections() {
            if (unixListener != null) unixListener.closeClients();
            if (link != null) link.close();
        }

        @Override
        public void closeLast() {
            if (http != null) http.close();
        }
    }

    @Override
    public void shutdown() {
        stop.run();
    }

    @Override
    public void awaitStopped() throws InterruptedException {
        stop.await();
    }

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
}
