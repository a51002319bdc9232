package beam.daemon;

import beam.node.NodeLogs;
import beam.node.NodeAnswers;
import beam.node.StackDumps;
import beam.cluster.Labels;
import beam.cluster.NodeAccelerator;
import beam.codec.FrameCodec;
import beam.codec.PayloadBudget;
import beam.connection.Connection;
import beam.connection.Listener;
import beam.connection.ReaderLoop;
import beam.http.HeadClusterReads;
import beam.http.NodeHttp;
import beam.metrics.NodeMetrics;
import beam.metrics.UserMetrics;
import beam.metrics.GpuStats;
import beam.node.AcceleratorTelemetry;
import beam.node.ActorEvents;
import beam.node.NodeAgent;
import beam.node.ProcessCap;
import beam.util.DeviceTelemetry;
import beam.util.Ids;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * What every node's daemon is made of, head or joined: its identity and host probes, the
 * frame codec (one payload budget for all its connections), the {@link NodeAgent} that runs
 * its actor processes, the unix listener for local clients, node.json and the HTTP face.
 * {@link Daemon} and {@link MemberDaemon} each add only what differs (the cluster and the
 * gate where nodes join; the link to the head), and stop their actors by the one policy
 * here ({@link #stopActors}).
 */
final class NodeAssembly {
    private static final Logger LOG = Logger.getLogger(NodeAssembly.class.getName());
    /**
     * How long a stopping node waits for its actor processes to be reaped after they were
     * told to stop, before it kills what is left.
     */
    static final long ACTOR_EXIT_WAIT_MILLIS = 3_000;

    final DaemonConfig config;
    final SessionDir session;
    final String nodeId = Ids.nodeId();
    final String nodeIp;
    /** This host's accelerators, probed once at construction (detection may run a vendor tool). */
    final Map<String, NodeAccelerator> accelerators;
    /** Its labels but its id (the head adds that): Ray's defaults, under the user's. */
    final Map<String, String> labels;
    final CompletableFuture<Map<String, String>> pythonVersions;
    final UserMetrics userMetrics = new UserMetrics();
    final FrameCodec codec;
    /** What the head may ask this node (docs/PROTOCOL.md, {@code node_ask}); answered alike on head and member. */
    final NodeAnswers answers;
    private volatile NodeAgent agent;
    private Listener unixListener;
    private NodeHttp http;
    /** Samples this node's accelerators' load; null where none has a tool that reports it. */
    private AcceleratorTelemetry telemetry;

    /** {@code routeTo}: the host whose route names this node's IP unless the config sets one. */
    NodeAssembly(DaemonConfig config, SessionDir session, String routeTo) {
        this.config = config;
        this.session = session;
        this.pythonVersions = HostFactsCollector.pythonVersions(config.environment());
        this.nodeIp = config.nodeIp() != null ? config.nodeIp() : HostProbe.routeAddress(routeTo);
        this.accelerators = HostProbe.accelerators(config);
        String model = accelerators.values().stream().map(NodeAccelerator::type).filter(t -> t != null).findFirst().orElse(null);
        this.labels = Labels.merged(Labels.defaults(model, config.environment()::get), config.labels());
        this.codec = new FrameCodec(config.limits(), PayloadBudget.forThisHeap());
        // the agent starts later (startAgent): until then no pid is one of its actor processes
        this.answers = new NodeAnswers(new NodeLogs(session.logsDir()),
                new StackDumps(session.stacksDir(), pid -> agent != null && agent.runsActorProcess(pid)));
    }

    /** The agent that runs this node's actor processes, reporting to {@code events}. */
    NodeAgent startAgent(ActorEvents events) {
        agent = new NodeAgent(events, session.socketPath(), session.logsDir(), accelerators,
                ProcessCap.of(config.maxActorProcesses()));
        return agent;
    }

    NodeAgent agent() {
        return agent;
    }

    /** Binds the unix socket for local clients, each served by {@code clients}. */
    Listener listen(Function<Connection, ReaderLoop.Handler> clients) throws IOException {
        unixListener = Listener.unix(session.socketPath(), codec, config.maxConnections(), clients).start();
        return unixListener;
    }

    void writeNodeJson(String gcsAddress) throws IOException {
        session.writeNodeJson(nodeId, nodeIp, gcsAddress, ProcessHandle.current().pid());
    }

    /**
     * The HTTP face, bound off the start path when the config asks for one; its ports go into
     * node.json and, by role, to {@code portsFact} (the cluster or the head).
     */
    void startHttp(Supplier<String> health, HeadClusterReads head, NodeMetrics.ClusterSource cluster,
                   Consumer<Map<String, Integer>> portsFact) {
        if (config.http() == null) return;
        http = new NodeHttp(config.http(), config.authToken(), health, head,
                new NodeMetrics(userMetrics, health, cluster, new GpuStats(nodeIp, cluster != null, this::latestTelemetry)));
        http.startInBackground((ports, error) -> {
            portsFact.accept(ports);
            try {
                session.writeHttp(ports, error);
            } catch (IOException e) {
                LOG.warning("cannot add the HTTP ports to node.json: " + e.getMessage());
            }
        });
    }

    /**
     * Starts sampling the accelerators' utilization and memory where this node has a tool for
     * them; each sample goes to {@code samples} (the cluster or the head).
     */
    void startTelemetry(Consumer<DeviceTelemetry> samples) {
        telemetry = AcceleratorTelemetry.start(accelerators, samples);
    }

    private DeviceTelemetry latestTelemetry() {
        AcceleratorTelemetry t = telemetry;
        return t == null ? DeviceTelemetry.NONE : t.latest();
    }

    /** The first step of stopping: no new local client. */
    void stopAccepting() {
        if (telemetry != null) telemetry.close();
        if (unixListener != null) unixListener.close();
    }

    /**
     * The one way a node stops its actors, head or joined: {@code tellStop} first has every
     * actor told to stop in the way that records why (on the head the domain marks each dead
     * with "the daemon is stopping", so nothing restarts and owners hear the cause, and kills
     * it through its node; a joined node, whose head is gone or is being left, has its agent
     * kill them), then the node waits a bounded {@link #ACTOR_EXIT_WAIT_MILLIS} for the
     * processes to be reaped (their exits are reported and logs pumped), then kills whatever
     * is still running, so no process outlives the daemon holding a GPU.
     */
    void stopActors(Runnable tellStop) {
        if (agent == null) return;
        tellStop.run();
        if (!agent.awaitNoneRunning(ACTOR_EXIT_WAIT_MILLIS)) agent.killAll();
    }

    /** Ends the local clients' connections once what is queued for them is sent. */
    void closeConnections() {
        if (unixListener != null) unixListener.closeClients();
    }

    void closeLast() {
        if (http != null) http.close();
    }
}
