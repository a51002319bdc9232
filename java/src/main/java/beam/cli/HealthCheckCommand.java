package beam.cli;

import beam.protocol.Request;
import beam.config.Environment;
import beam.auth.TlsConfig;
import beam.codec.Frame;
import beam.codec.FrameCodec;
import beam.codec.FrameException;
import beam.codec.FrameLimits;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ray health-check}: exit 0 when the cluster answers, 1 with the reason otherwise
 * (Ray's hidden command, which KubeRay's worker pods run to wait for the head).
 *
 * <p>With {@code --address HOST:PORT} (no beam on this machine needed) it connects to the
 * head's port and expects the challenge every beam head sends first: the head is up and
 * serving; no token is needed, none is sent, and the head counts it as no join. Without it,
 * this machine's daemon must answer a request that its head answers (on a joined node the
 * request crosses the node link).
 */
@Command(name = "health-check", addMethodSubcommands = false, hidden = true,
        description = "Exit 0 if the cluster is healthy, 1 (with the reason) if not.")
public final class HealthCheckCommand implements Callable<Integer> {
    private final Environment env;

    HealthCheckCommand(Environment env) {
        this.env = env;
    }

    static final int CONNECT_TIMEOUT_MILLIS = 5_000;

    @Option(names = "--address", description = "The head's HOST:PORT (default: ask this machine's daemon).")
    String address;

    @Option(names = "--temp-dir", description = "Root of the session directories (default: as `ray.init()` finds them).")
    String tempDir;

    @Option(names = "--component", description = "Accepted for Ray compatibility; beam has no separate components.")
    String component;

    @Option(names = "--skip-version-check", description = "Accepted for Ray compatibility.")
    boolean skipVersionCheck;

    @Option(names = "--redis_password", description = "Accepted for Ray compatibility; beam has no Redis.", hidden = true)
    String redisPassword;

    @Override
    public Integer call() {
        try {
            String ok = address != null ? checkHead(address) : checkLocal();
            System.err.println("beam: healthy: " + ok); // stdout stays empty, as Ray's
            return 0;
        } catch (IOException e) {
            System.err.println("beam: unhealthy: " + e.getMessage());
            return 1;
        }
    }

    private String checkHead(String address) throws IOException {
        int colon = address.lastIndexOf(':');
        int port;
        try {
            port = Integer.parseInt(address.substring(colon + 1));
        } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
            throw new IOException("--address must be HOST:PORT, got '" + address + "'");
        }
        String host = address.substring(0, colon);
        TlsConfig tls = TlsConfig.resolve(null, null, null, env);
        try (Socket socket = tls == null ? new Socket() : tls.context().getSocketFactory().createSocket()) {
            socket.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MILLIS);
            socket.setSoTimeout(CONNECT_TIMEOUT_MILLIS);
            InputStream in = socket.getInputStream();
            Frame first = new FrameCodec(FrameLimits.DEFAULT).decode(in);
            if (first == null || !first.op().equals("challenge")) {
                throw new IOException("something answers at " + address + " but it is not a beam head"
                        + (tls == null ? " (if the head uses TLS, set RAY_TLS_SERVER_CERT, RAY_TLS_SERVER_KEY and RAY_TLS_CA_CERT)" : ""));
            }
            return "the head at " + address + " is serving (protocol " + first.header().path("proto").asInt() + ")";
        } catch (FrameException e) {
            throw new IOException("the head at " + address + " sent a malformed frame: " + e.getMessage());
        } catch (SocketTimeoutException e) {
            throw new IOException("the head at " + address + " did not answer within " + CONNECT_TIMEOUT_MILLIS / 1000 + " s");
        } catch (IOException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("something answers")) throw e; // ours, from above
            throw new IOException("nothing answers at " + address + " (" + e.getMessage() + "): is the head up, and its port reachable from here?");
        }
    }

    private String checkLocal() throws IOException {
        // --address here names the head to check over TCP, so the daemon is found as if none were given
        ObjectNode state = LocalDaemon.ask(env, tempDir, null, "health-check", Request.ClusterState::new); // prints why when none
        if (state == null) throw new IOException("no beam daemon is running that this command can use (why: above); give the head's --address, or start one with `ray start`");
        long alive = 0;
        for (var n : state.path("nodes")) if (n.path("Alive").asBoolean()) alive++;
        return "this node's daemon and the head answer (" + alive + " live node" + (alive == 1 ? "" : "s") + ")";
    }
}
