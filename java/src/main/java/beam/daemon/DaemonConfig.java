package beam.daemon;

import beam.auth.TlsConfig;
import beam.codec.FrameLimits;
import beam.config.Environment;
import beam.http.HttpConfig;
import beam.link.Heartbeat;
import beam.cluster.Labels;
import java.nio.file.Path;
import java.util.Map;

/**
 * Everything a daemon is started with, validated once. The environment is read once
 * ({@link Environment#current()}, by the CLI) and handed in here: the daemon sees it only as
 * {@link #environment()}. The defaults of {@code ray start}'s flags are named here and on the
 * types they configure ({@link FrameLimits#DEFAULT}, {@link Heartbeat#DEFAULT},
 * {@link HttpConfig}'s), each once.
 *
 * @param port          TCP port for nodes and remote clients (0 = any free port)
 * @param numGpus       declared GPUs, or null to detect them
 * @param numCpus       declared CPUs, or null for the core count
 * @param resourcesJson extra custom resources as a JSON object
 * @param nodeIp        the address other hosts reach this node on, or null to detect
 * @param tempDir       root of the session directories (Ray's /tmp/ray)
 * @param ownerPid      stop when this process exits (private clusters of ray.init()), or 0
 * @param limits        frame size limits
 * @param maxConnections connections accepted at once per listener
 * @param headAddress   HOST:PORT of the head to join, or null to be the head
 * @param authToken     the cluster token: the head's own (made at start) or the one a joining
 *                      node was given; null when auth is disabled
 * @param heartbeat     heartbeat period and node timeout of node links
 * @param tls           TLS for node links, or null for plain TCP (the token still applies)
 * @param http          where the HTTP face listens (health probes, metrics, dashboard), or
 *                      null for none (in-process tests)
 * @param maxActorProcesses actor processes this node runs at once; {@link #DEFAULT_MAX_ACTOR_PROCESSES}
 *                      for the host's default (node.ProcessCap)
 * @param environment   the environment the daemon was started in (accelerator visibility,
 *                      the device root, the Python to ask for versions)
 * @param longCallSeconds a call running longer than this is named in ray status, the
 *                      dashboard and ray doctor ({@code --long-call-seconds}, {@link Environment#LONG_CALL_S})
 * @param labels        this node's labels as the user gave them ({@code --labels}, {@code --labels-file},
 *                      {@code RAY_OVERRIDE_LABELS}, checked); Ray's defaults go under them (NodeAssembly)
 */
public record DaemonConfig(int port, Integer numGpus, Integer numCpus, String resourcesJson, String nodeIp,
                           Path tempDir, long ownerPid, FrameLimits limits, int maxConnections, String headAddress,
                           String authToken, Heartbeat heartbeat, TlsConfig tls,
                           HttpConfig http, int maxActorProcesses, Environment environment,
                           int longCallSeconds, Map<String, String> labels) {
    public static final int DEFAULT_LONG_CALL_SECONDS = 60;
    /** Ray's GCS port. */
    public static final int DEFAULT_PORT = 6379;
    public static final int DEFAULT_MAX_CONNECTIONS = 4096;
    /** 0: as many as the host's memory and pid limit allow (node.ProcessCap). */
    public static final int DEFAULT_MAX_ACTOR_PROCESSES = 0;
    /** {@code --owner-pid} not given: the daemon outlives whoever started it. */
    public static final long NO_OWNER = 0;
    /** Connections per listener of the in-process daemons of tests, which never need more. */
    private static final int TEST_MAX_CONNECTIONS = 256;

    /** A single-node head with defaults: for tests. */
    public static DaemonConfig head(Path tempDir, int numGpus, String nodeIp) {
        return new DaemonConfig(0, numGpus, 4, null, nodeIp, tempDir, NO_OWNER, FrameLimits.DEFAULT, TEST_MAX_CONNECTIONS,
                null, null, Heartbeat.DEFAULT, null, DEFAULT_MAX_ACTOR_PROCESSES);
    }

    /** Without an HTTP face, in this process's environment: for in-process daemons of tests. */
    public DaemonConfig(int port, Integer numGpus, Integer numCpus, String resourcesJson, String nodeIp, Path tempDir,
                        long ownerPid, FrameLimits limits, int maxConnections, String headAddress, String authToken,
                        Heartbeat heartbeat, TlsConfig tls, int maxActorProcesses) {
        this(port, numGpus, numCpus, resourcesJson, nodeIp, tempDir, ownerPid, limits, maxConnections, headAddress,
                authToken, heartbeat, tls, null, maxActorProcesses, Environment.current(), DEFAULT_LONG_CALL_SECONDS, Map.of());
    }

    public boolean isHead() {
        return headAddress == null;
    }

    public DaemonConfig {
        if (port < 0 || port > 65535) throw new IllegalArgumentException("--port must be in 0..65535, got " + port);
        if (numGpus != null && numGpus < 0) throw new IllegalArgumentException("--num-gpus must be >= 0");
        if (numCpus != null && numCpus < 0) throw new IllegalArgumentException("--num-cpus must be >= 0");
        if (maxActorProcesses < 0) throw new IllegalArgumentException("--max-actor-processes must be >= 1");
        if (maxConnections < 1) throw new IllegalArgumentException("--max-connections must be >= 1");
        if (headAddress != null && !headAddress.matches(".+:[0-9]{1,5}")) {
            throw new IllegalArgumentException("--address must be HOST:PORT, got '" + headAddress + "'");
        }
        if (longCallSeconds < 1) {
            throw new IllegalArgumentException("--long-call-seconds (or " + Environment.LONG_CALL_S + ") must be a whole number "
                    + "of seconds >= 1, got " + longCallSeconds);
        }
        labels = Map.copyOf(Labels.checked(labels));
        if (environment == null) throw new IllegalArgumentException("a daemon needs its environment (Environment.current())");
    }
}
