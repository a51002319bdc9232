package beam.daemon;

import beam.cluster.Cluster;
import beam.cluster.Node;
import beam.cluster.Resources;
import beam.codec.FrameCodec;
import beam.connection.Listener;
import beam.dispatch.DaemonContext;
import beam.dispatch.Session;
import beam.node.NodeAgent;
import beam.util.Ids;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

/**
 * One beam daemon: wires the session directory, the cluster state, the local node agent
 * and the listeners, and owns the single shutdown path (close listeners, kill actors,
 * wait for them briefly, remove node.json, release {@link #awaitStopped()}).
 */
public final class Daemon implements DaemonContext {
    private static final Logger LOG = Logger.getLogger(Daemon.class.getName());
    private static final long ACTOR_EXIT_WAIT_MILLIS = 3_000;

    private final DaemonConfig config;
    private final SessionDir session;
    private final String nodeId = Ids.nodeId();
    private final String nodeIp;
    private final Cluster cluster = new Cluster(UUID.randomUUID().toString());
    private final NodeAgent agent;
    private final AtomicInteger jobCounter = new AtomicInteger();
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private Listener unixListener;
    private Listener tcpListener;
    private String gcsAddress;

    public Daemon(DaemonConfig config, SessionDir session) {
        this.config = config;
        this.session = session;
        this.nodeIp = config.nodeIp() != null ? config.nodeIp() : HostProbe.routeAddress("8.8.8.8");
        this.agent = new NodeAgent(cluster, session.socketPath(), session.logsDir());
    }

    /** Registers the head node, binds both listeners and writes node.json. */
    public Daemon start() throws IOException {
        FrameCodec codec = new FrameCodec(config.limits());
        tcpListener = Listener.tcp(new InetSocketAddress(config.port()), codec, config.maxConnections(),
                c -> new RemoteGate(c).run()).start();
        int port = ((InetSocketAddress) tcpListener.localAddress()).getPort();
        gcsAddress = nodeIp + ":" + port;
        cluster.addNode(new Node(nodeId, nodeIp, HostProbe.hostname(), true, resources(), gpuIds(), agent));
        unixListener = Listener.unix(session.socketPath(), codec, config.maxConnections(),
                c -> new Session(c, this).run()).start();
        session.writeNodeJson(nodeId, nodeIp, gcsAddress, ProcessHandle.current().pid());
        Thread.ofVirtual().name("ticker").start(this::tickLoop);
        if (config.ownerPid() > 0) {
            ProcessHandle.of(config.ownerPid()).ifPresentOrElse(
                    h -> h.onExit().thenRun(() -> {
                        LOG.info("owner process " + config.ownerPid() + " exited; stopping");
                        requestShutdown();
                    }),
                    this::requestShutdown);
        }
        LOG.info("beam daemon " + nodeId + " serving on " + session.socketPath() + " and " + gcsAddress);
        return this;
    }

    private List<String> gpuIds() {
        return HostProbe.gpuIds(config.numGpus(), System.getenv("CUDA_VISIBLE_DEVICES"));
    }

    private Resources resources() {
        Resources r = Resources.fromJson(parseResources(config.resourcesJson()), "--resources");
        int cpus = config.numCpus() != null ? config.numCpus() : Runtime.getRuntime().availableProcessors();
        r.set("CPU", (long) cpus * Resources.UNIT);
        r.set("GPU", (long) gpuIds().size() * Resources.UNIT);
        long mem = HostProbe.availableMemoryBytes();
        long objectStore = (long) (mem * 0.3);
        r.set("memory", (mem - objectStore) * Resources.UNIT);
        r.set("object_store_memory", objectStore * Resources.UNIT);
        r.set("node:" + nodeIp, Resources.UNIT);
        r.set("node:__internal_head__", Resources.UNIT);
        return r;
    }

    static com.fasterxml.jackson.databind.JsonNode parseResources(String json) {
        if (json == null || json.isBlank()) return null;
        try {
            return FrameCodec.JSON.readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException("--resources must be a JSON object such as '{\"TPU\": 4}', got: " + json);
        }
    }

    private void tickLoop() {
        while (!stopping.get()) {
            try {
                Thread.sleep(1_000);
            } catch (InterruptedException e) {
                return;
            }
            cluster.groups().tick();
        }
    }

    @Override
    public void requestShutdown() {
        if (!stopping.compareAndSet(false, true)) return;
        Thread.ofPlatform().name("shutdown").start(this::shutdown);
    }

    /** The one shutdown path. Safe to call from a JVM shutdown hook. */
    public void shutdown() {
        stopping.set(true);
        if (unixListener != null) unixListener.close();
        if (tcpListener != null) tcpListener.close();
        cluster.stopAll();
        if (!agent.awaitNoneRunning(ACTOR_EXIT_WAIT_MILLIS)) agent.killAll();
        session.removeNodeJson();
        LOG.info("beam daemon stopped");
        stopped.countDown();
    }

    public void awaitStopped() throws InterruptedException {
        stopped.await();
    }

    public boolean isStopping() {
        return stopping.get();
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
    public String nextJobId() {
        return Ids.jobId(jobCounter.incrementAndGet());
    }

    public Path socketPath() {
        return session.socketPath();
    }

    public NodeAgent agent() {
        return agent;
    }
}
