package beam.daemon;

import beam.auth.TokenAuth;
import beam.cluster.Cluster;
import beam.cluster.ClusterSnapshot;
import beam.cluster.Node;
import beam.cluster.NodeAccelerator;
import beam.codec.FrameCodec;
import beam.codec.FrameLimits;
import beam.codec.PayloadBudget;
import beam.connection.Listener;
import beam.dispatch.DaemonContext;
import beam.dispatch.LocalClient;
import beam.dispatch.Origin;
import beam.http.CachedView;
import beam.http.HeadView;
import beam.http.HttpConfig;
import beam.http.NodeHttp;
import beam.link.HeadGate;
import beam.metrics.NodeMetrics;
import beam.metrics.UserMetrics;
import beam.node.NodeAgent;
import beam.node.ProcessCap;
import beam.util.Ids;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import beam.util.Scheduler;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * The head's daemon: wires the session directory, the cluster state, the local node agent,
 * the unix listener for local clients and the TCP listener where nodes join
 * ({@link HeadGate}); it stops through the one {@link StopPath}.
 */
public final class Daemon implements DaemonContext, RunningDaemon {
    private static final Logger LOG = Logger.getLogger(Daemon.class.getName());
    private static final long ACTOR_EXIT_WAIT_MILLIS = 3_000;

    private final DaemonConfig config;
    private final SessionDir session;
    private final String nodeId = Ids.nodeId();
    private final String nodeIp;
    private final Cluster cluster = new Cluster(UUID.randomUUID().toString());
    private final NodeAgent agent;
    private final HeadLocalNode localNode;
    private final AtomicInteger jobCounter = new AtomicInteger();
    private final StopPath stop;
    private Listener unixListener;
    private Listener tcpListener;
    private HeadGate gate;
    private String gcsAddress;
    /** How often the placement groups' timeouts are checked. */
    private static final long GROUP_TICK_MILLIS = 1_000;
    private volatile Scheduler.Timer groupTicks;
    private final CompletableFuture<JsonNode> pythonVersions;
    private final UserMetrics userMetrics = new UserMetrics();
    private NodeHttp http;
    /** This host's accelerators, probed once at construction (detection may run a vendor tool). */
    private final Map<String, NodeAccelerator> accelerators;

    public Daemon(DaemonConfig config, SessionDir session) {
        this.config = config;
        this.session = session;
        this.pythonVersions = NodeFacts.pythonVersions(config.environment());
        this.nodeIp = config.nodeIp() != null ? config.nodeIp() : HostProbe.routeAddress("8.8.8.8");
        this.localNode = new HeadLocalNode(cluster);
        this.accelerators = HostProbe.accelerators(config);
        this.agent = new NodeAgent(localNode, session.socketPath(), session.logsDir(), accelerators,
                ProcessCap.of(config.maxActorProcesses()));
        localNode.attach(agent);
        this.stop = new StopPath(session, new Steps());
    }

    /** Registers the head node, binds both listeners and writes node.json. */
    public Daemon start() throws IOException {
        FrameCodec codec = new FrameCodec(config.limits(), PayloadBudget.forThisHeap()); // one budget for all its connections
        TokenAuth auth = new TokenAuth(config.authToken());
        if (auth.enabled()) TokenAuth.store(session.dir().resolve(TokenAuth.TOKEN_FILE), config.authToken());
        else LOG.warning("token authentication is DISABLED (RAY_AUTH_MODE=disabled): anyone who reaches port "
                + config.port() + " can join this cluster and run code on it");
        gate = new HeadGate(this, auth, config.heartbeat(), config.maxConnections());
        tcpListener = (config.tls() == null
                ? Listener.tcp(new InetSocketAddress(config.port()), codec, config.maxConnections(), gate::serve)
                : Listener.tls(new InetSocketAddress(config.port()), config.tls().context(), codec, config.maxConnections(),
                        gate::serve)).start();
        int port = ((InetSocketAddress) tcpListener.localAddress()).getPort();
        gcsAddress = nodeIp + ":" + port;
        ObjectNode headFacts = NodeFacts.collect(nodeIp, accelerators, config.environment());
        headFacts.put("probe_port", port);
        cluster.addNode(new Node(nodeId, nodeIp, HostProbe.hostname(), true,
                HostProbe.resources(config, nodeIp, true, accelerators), accelerators, localNode).withFacts(headFacts));
        pythonVersions.thenAccept(py -> cluster.onNodeVersions(nodeId, py));
        Origin origin = new Origin(nodeId, nodeIp, session.dir().toString());
        unixListener = Listener.unix(session.socketPath(), codec, config.maxConnections(),
                c -> LocalClient.of(c, this, origin)).start();
        session.writeNodeJson(nodeId, nodeIp, gcsAddress, ProcessHandle.current().pid());
        // on the process's one timer thread (a platform thread: waking a virtual one costs the idle daemon CPU)
        groupTicks = Scheduler.system().every(GROUP_TICK_MILLIS, cluster.groups()::tick);
        if (config.ownerPid() > 0) {
            ProcessHandle.of(config.ownerPid()).ifPresentOrElse(
                    h -> h.onExit().thenRun(() -> {
                        LOG.info("owner process " + config.ownerPid() + " exited; stopping");
                        requestShutdown();
                    }),
                    this::requestShutdown);
        }
        if (config.http() != null) startHttp(config.http());
        LOG.info("beam daemon " + nodeId + " serving on " + session.socketPath() + " and " + gcsAddress);
        return this;
    }

    /** The HTTP face, bound off the start path; its ports go into node.json and the head's node facts. */
    private void startHttp(HttpConfig httpConfig) {
        CachedView<ClusterSnapshot> view = new CachedView<>(cluster::snapshot);
        Supplier<String> health = () -> stop.stopping() ? "the beam daemon is shutting down" : null;
        HeadView head = new HeadView() {
            @Override
            public ClusterSnapshot status() {
                return view.get();
            }

            @Override
            public String actorLog(String actorId, int lines) {
                return cluster.actorLogTail(actorId, lines);
            }
        };
        NodeMetrics metrics = new NodeMetrics(userMetrics, health,
                new NodeMetrics.ClusterSource() {
                    @Override
                    public ClusterSnapshot status() {
                        return view.get();
                    }

                    @Override
                    public long calls() {
                        return cluster.callStats().calls();
                    }

                    @Override
                    public long failedCalls() {
                        return cluster.callStats().failedCalls();
                    }
                });
        http = new NodeHttp(httpConfig, config.authToken(), health, head, metrics);
        http.startInBackground((ports, error) -> {
            ObjectNode facts = JsonNodeFactory.instance.objectNode();
            ports.forEach(facts.putObject("http_ports")::put);
            cluster.onNodeFacts(nodeId, facts);
            try {
                session.writeHttp(ports, error);
            } catch (IOException e) {
                LOG.warning("cannot add the HTTP ports to node.json: " + e.getMessage());
            }
        });
    }

    @Override
    public void driverConnected() {
        agent.warmPool();
    }

    @Override
    public void requestShutdown() {
        stop.request();
    }

    /** Safe to call from a JVM shutdown hook. */
    @Override
    public void shutdown() {
        stop.run();
    }

    @Override
    public void awaitStopped() throws InterruptedException {
        stop.await();
    }

    /** The head's part of each step of {@link StopPath}. */
    private final class Steps implements StopPath.Steps {
        @Override
        public void stopAccepting() {
            if (groupTicks != null) groupTicks.cancel();
            if (unixListener != null) unixListener.close();
            if (tcpListener != null) tcpListener.close();
            if (gate != null) gate.close();
        }

        @Override
        public void stopActors() {
            cluster.stopAll();
            if (!agent.awaitNoneRunning(ACTOR_EXIT_WAIT_MILLIS)) agent.killAll();
        }

        @Override
        public void closeConnections() {
            if (unixListener != null) unixListener.closeClients();
        }

        @Override
        public void closeLast() {
            if (http != null) http.close();
        }
    }

    // ------------------------------------------------------------ DaemonContext

    @Override
    public Cluster cluster() {
        return cluster;
    }

    @Override
    public String nodeId() {
        return nodeId;
    }

    @Override
    public String nodeIp() {
        return nodeIp;
    }

    @Override
    public String sessionDir() {
        return session.dir().toString();
    }

    @Override
    public String gcsAddress() {
        return gcsAddress;
    }

    @Override
    public FrameLimits limits() {
        return config.limits();
    }

    @Override
    public UserMetrics userMetrics() {
        return userMetrics;
    }

    @Override
    public String nextJobId() {
        return Ids.jobId(jobCounter.incrementAndGet());
    }

    @Override
    public String joinHint() {
        return config.authToken() == null ? "ray start --address='" + gcsAddress + "'"
                : "RAY_AUTH_TOKEN_PATH=<copy of " + session.dir().resolve(TokenAuth.TOKEN_FILE) + "> ray start --address='"
                + gcsAddress + "'";
    }

    public Path socketPath() {
        return session.socketPath();
    }

    public NodeAgent agent() {
        return agent;
    }
}
