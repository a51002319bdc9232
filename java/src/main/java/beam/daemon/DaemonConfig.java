package beam.daemon;

import beam.codec.FrameLimits;
import beam.link.Heartbeat;
import java.nio.file.Path;

/**
 * Everything a daemon is started with, validated once. Environment variables are read in
 * {@link beam.cli.StartCommand} only.
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
 * @param maxActorProcesses actor processes this node runs at once; 0 for the host's default (node.ProcessCap)
 */
public record DaemonConfig(int port, Integer numGpus, Integer numCpus, String resourcesJson, String nodeIp,
                           Path tempDir, long ownerPid, FrameLimits limits, int maxConnections, String headAddress,
                           String authToken, Heartbeat heartbeat, beam.auth.TlsConfig tls,
                           beam.http.HttpConfig http, int maxActorProcesses) {
    public static final int DEFAULT_PORT = 6379;
    public static final int DEFAULT_MAX_CONNECTIONS = 4096;

    /** A single-node head with defaults: for tests. */
    public static DaemonConfig head(Path tempDir, int numGpus, String nodeIp) {
        return new DaemonConfig(0, numGpus, 4, null, nodeIp, tempDir, 0, FrameLimits.DEFAULT, 256, null,
                null, Heartbeat.DEFAULT, null, 0);
    }

    /** Without an HTTP face. */
    public DaemonConfig(int port, Integer numGpus, Integer numCpus, String resourcesJson, String nodeIp, Path tempDir,
                        long ownerPid, FrameLimits limits, int maxConnections, String headAddress, String authToken,
                        Heartbeat heartbeat, beam.auth.TlsConfig tls, int maxActorProcesses) {
        this(port, numGpus, numCpus, resourcesJson, nodeIp, tempDir, ownerPid, limits, maxConnections, headAddress,
                authToken, heartbeat, tls, null, maxActorProcesses);
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
    }
}
