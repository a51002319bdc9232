package beam.daemon;

import beam.auth.TokenAuth;
import beam.cluster.Cluster;
import beam.cluster.ClusterSnapshot;
import beam.cluster.Node;
import beam.cluster.RequestException;
import beam.codec.FrameLimits;
import beam.connection.Listener;
import beam.dispatch.ConnectedDrivers;
import beam.dispatch.DaemonContext;
import beam.dispatch.LocalClient;
import beam.dispatch.Origin;
import beam.http.CachedView;
import beam.http.HeadClusterReads;
import beam.views.ClusterLogs;
import beam.http.Route;
import beam.link.head.HeadGate;
import beam.metrics.NodeMetrics;
import beam.metrics.UserMetrics;
import beam.node.NodeAgent;
import beam.util.HostFacts;
import beam.util.Ids;
import beam.util.Scheduler;
import beam.views.Stacks;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.Map;
import java.util.logging.Logger;

/**
 * The head's daemon: adds to what every node has ({@link NodeAssembly}: agent, unix
 * listener, node.json, HTTP face) the cluster state, its own node in it ({@link HeadOwnNode})
 * and the TCP listener where nodes join ({@link HeadGate}, served through
 * {@link RelayedSessions}); it stops through the one {@link StopPath}.
 */
public final class Daemon implements DaemonContext, RunningDaemon {
    private static final Logger LOG = Logger.getLogger(Daemon.class.getName());
    /** How often the placement groups' timeouts are checked. */
    private static final long GROUP_TICK_MILLIS = 1_000;

    private final DaemonConfig config;
    private final SessionDir session;
    private final NodeAssembly node;
    private final String nodeId;
    private final String nodeIp;
    private final Cluster cluster = new Cluster(UUID.randomUUID().toString(), Scheduler.system());
    private final NodeAgent agent;
    private final HeadOwnNode localNode;
    private final AtomicInteger jobCounter = new AtomicInteger();
    private final StopPath stop;
    private Listener tcpListener;
    private HeadGate gate;
    private String gcsAddress;
    private volatile Scheduler.Timer groupTicks;
    private final ConnectedDrivers drivers = new ConnectedDrivers();

    public Daemon(DaemonConfig config, SessionDir session) {
        this.config = config;
        this.session = session;
        this.node = new NodeAssembly(config, session, "8.8.8.8");
        this.nodeId = node.nodeId;
        this.nodeIp = node.nodeIp;
        cluster.longCallMillis(config.longCallSeconds() * 1000L);
        this.localNode = new HeadOwnNode(cluster, node.answers);
        this.agent = node.startAgent(localNode);
        localNode.attach(agent);
        this.stop = new StopPath(session, new Steps());
    }

    /** Registers the head node, binds both listeners and writes node.json. */
    public Daemon start() throws IOException {
        TokenAuth auth = new TokenAuth(config.authToken());
        if (auth.enabled()) TokenAuth.store(session.dir().resolve(TokenAuth.TOKEN_FILE), config.authToken());
        else LOG.warning("token authentication is DISABLED (RAY_AUTH_MODE=disabled): anyone who reaches port "
                + config.port() + " can join this cluster and run code on it");
        gate = new HeadGate(new RelayedSessions(this), auth, config.heartbeat(), config.maxConnections());
        tcpListener = (config.tls() == null
                ? Listener.tcp(new InetSocketAddress(config.port()), node.codec, config.maxConnections(), gate::serve)
                : Listener.tls(new InetSocketAddress(config.port()), config.tls().context(), node.codec,
                        config.maxConnections(), gate::serve)).start();
        int port = ((InetSocketAddress) tcpListener.localAddress()).getPort();
        gcsAddress = nodeIp + ":" + port;
        HostFacts headFacts = HostFactsCollector.collect(nodeIp, node.accelerators, config.environment(), port, null);
        cluster.addNode(new Node(nodeId, nodeIp, HostProbe.hostname(), true,
                HostProbe.resources(config, nodeIp, true, node.accelerators), node.accelerators, node.labels, localNode)
                .withFacts(headFacts));
        node.pythonVersions.thenAccept(py -> recordVersions(cluster, nodeId, py));
        Origin origin = new Origin(nodeId, nodeIp, session.dir().toString());
        node.listen(c -> LocalClient.of(c, this, origin));
        node.writeNodeJson(gcsAddress);
        // on the process's one timer thread (a platform thread: waking a virtual one costs the idle daemon CPU)
        groupTicks = Scheduler.system().every(GROUP_TICK_MILLIS, cluster::tickGroups);
        if (config.ownerPid() > 0) {
            ProcessHandle.of(config.ownerPid()).ifPresentOrElse(
                    h -> h.onExit().thenRun(() -> {
                        LOG.info("owner process " + config.ownerPid() + " exited; stopping");
                        requestShutdown();
                    }),
                    this::requestShutdown);
        }
        startHttp();
        node.startTelemetry(sample -> cluster.onTelemetry(nodeId, sample));
        LOG.info("beam daemon " + nodeId + " serving on " + session.socketPath() + " and " + gcsAddress);
        return this;
    }

    /** The HTTP face: the head's adds the cluster's pages, state API and metrics to every node's. */
    private void startHttp() {
        if (config.http() == null) return;
        CachedView<ClusterSnapshot> view = new CachedView<>(cluster::snapshot);
        Supplier<String> health = () -> stop.stopping() ? "the beam daemon is shutting down" : null;
        HeadClusterReads head = new HeadClusterReads() {
            @Override
            public ClusterSnapshot status() {
                return view.get();
            }

            @Override
            public ObjectNode log(ClusterLogs.Ask ask) throws ClusterLogs.Refused {
                return ClusterLogs.read(cluster, ask);
            }

            @Override
            public JsonNode actorStack(String actorId) throws Route.HttpError {
                try {
                    return Stacks.run(cluster.snapshot(), drivers.list(), new Stacks.Filter(null, actorId, 0),
                            Stacks.askerOf(cluster));
                } catch (RequestException e) {
                    throw new Route.HttpError(404, e.getMessage());
                }
            }
        };
        NodeMetrics.ClusterSource source = new NodeMetrics.ClusterSource() {
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
        };
        node.startHttp(health, head, source, ports -> cluster.onHttpPorts(nodeId, ports));
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
            node.stopAccepting();
            if (tcpListener != null) tcpListener.close();
            if (gate != null) gate.close();
        }

        @Override
        public void stopActors() {
            node.stopActors(cluster::stopAll);
        }

        @Override
        public void closeConnections() {
            node.closeConnections();
        }

        @Override
        public void closeLast() {
            node.closeLast();
        }
    }

    // ------------------------------------------------------------ DaemonContext

    @Override
    public Cluster cluster() {
        return cluster;
    }

    /** A node's Python-side versions (this node's, or a joined one's over its link); each mismatch with the head's is logged. */
    static void recordVersions(Cluster cluster, String nodeId, Map<String, String> versions) {
        for (String w : cluster.onNodeVersions(nodeId, versions)) {
            LOG.warning("version mismatch: " + w + "; install the same versions on every node");
        }
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
        return node.userMetrics;
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

    @Override
    public ConnectedDrivers drivers() {
        return drivers;
    }

    public Path socketPath() {
        return session.socketPath();
    }

    public NodeAgent agent() {
        return agent;
    }
}
