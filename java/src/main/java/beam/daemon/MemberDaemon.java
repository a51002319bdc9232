package beam.daemon;

import beam.cluster.NodeAccelerator;
import beam.connection.Listener;
import beam.link.member.MemberDialer;
import beam.link.member.MemberLinkToHead;
import beam.node.NodeAgent;
import beam.link.Prober;
import beam.protocol.LinkMessage;
import beam.protocol.Protocol;
import beam.util.HostFacts;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.logging.Logger;

/**
 * The daemon of a node that joined a head (`ray start --address HEAD:PORT`): adds to what
 * every node has ({@link NodeAssembly}) the link to the head ({@link MemberDialer},
 * {@link MemberLinkToHead}), over which its actor processes and local clients reach the head.
 * It keeps no cluster state.
 *
 * <p>If the head is lost it stops its actors and its clients and exits with
 * {@link #HEAD_LOST_EXIT}, so no GPU stays held by an orphan.
 */
public final class MemberDaemon implements RunningDaemon {
    private static final Logger LOG = Logger.getLogger(MemberDaemon.class.getName());
    /** The exit status of a joined node that stopped because its head went away. */
    public static final int HEAD_LOST_EXIT = 3;

    private final DaemonConfig config;
    private final SessionDir session;
    private final NodeAssembly node;
    private final String nodeId;
    private final String nodeIp;
    private final StopPath stop;
    private MemberLinkToHead link;
    private ServerSocket probeListener;
    private volatile String lostReason; // why the head is lost, once it is
    private volatile int exitCode;

    public MemberDaemon(DaemonConfig config, SessionDir session) {
        this.config = config;
        this.session = session;
        this.node = new NodeAssembly(config, session,
                config.headAddress().substring(0, config.headAddress().lastIndexOf(':')));
        this.nodeId = node.nodeId;
        this.nodeIp = node.nodeIp;
        this.stop = new StopPath(session, new Steps());
    }

    /** Connects and authenticates to the head, joins, then serves local clients. */
    public MemberDaemon start() throws IOException {
        MemberDialer dialer = new MemberDialer(config.headAddress(), config.tls() == null ? null : config.tls().context(),
                config.authToken());
        MemberDialer.Joined joined;
        try {
            joined = dialer.join(joinMessage(), node.codec);
        } catch (IOException e) {
            closeProbeListener();
            throw e;
        }
        link = new MemberLinkToHead(joined, config.heartbeat(), this::headLost);
        NodeAgent agent = node.startAgent(new MemberActorEvents(link));
        link.attach(new MemberDaemonServices(agent, node.userMetrics, node.answers));
        Listener unixListener = node.listen(link::localClient);
        node.writeNodeJson(config.headAddress());
        link.startReading(unixListener);
        node.pythonVersions.thenAccept(py -> link.send(new LinkMessage.NodeVersions(py)));
        node.startHttp(this::healthProblem, null, null, ports -> link.send(new LinkMessage.HttpPorts(ports)));
        node.startTelemetry(sample -> link.send(new LinkMessage.Telemetry(sample)));
        LOG.info("joined the head at " + config.headAddress() + " as node " + nodeIp + " (" + nodeId + ")");
        return this;
    }

    private LinkMessage.Join joinMessage() {
        int probePort = -1;
        String probeError = null;
        try {
            probeListener = Prober.listen(nodeIp);
            probePort = probeListener.getLocalPort();
        } catch (IOException e) {
            probeError = "cannot listen on the node IP " + nodeIp + ": " + e.getMessage();
        }
        HostFacts facts = HostFactsCollector.collect(nodeIp, node.accelerators, config.environment(), probePort, probeError);
        return new LinkMessage.Join(1, Protocol.VERSION, null, nodeId, nodeIp, HostProbe.hostname(),
                session.dir().toString(), HostProbe.resources(config, nodeIp, false, node.accelerators).amounts(), null,
                NodeAccelerator.describeAll(node.accelerators), node.labels, facts);
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
            node.stopAccepting();
            closeProbeListener();
        }

        @Override
        public void stopActors() {
            // the head that placed them is gone or is being left: this node's agent tells them
            NodeAgent agent = node.agent();
            node.stopActors(() -> agent.killAll());
        }

        @Override
        public void closeConnections() {
            node.closeConnections();
            if (link != null) link.close();
        }

        @Override
        public void closeLast() {
            node.closeLast();
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
