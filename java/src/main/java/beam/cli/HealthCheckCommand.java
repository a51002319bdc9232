package beam.cli;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ray health-check}: exit 0 when the cluster answers, 1 when not. Slurm scripts and
 * KubeRay's worker init container ({@code until ray health-check --address HEAD:6379 ...})
 * wait on it before {@code ray start --address}. With {@code --address}, the head's port
 * must accept a TCP connection (nothing is sent: the head's gate waits for a join); without,
 * the local daemon ({@link Discovery}) must accept one on its socket.
 */
@Command(name = "health-check", addMethodSubcommands = false, description = "Exit 0 if the cluster (or the head at --address) answers.")
public final class HealthCheckCommand implements Callable<Integer> {
    static final int CONNECT_TIMEOUT_MILLIS = 5_000;

    @Option(names = "--address", description = "The head's HOST:PORT (default: the local daemon).")
    String address;

    @Option(names = "--temp-dir", description = "Root of the session directories of the local daemon.")
    String tempDir;

    @Option(names = {"--component", "--skip-version-check", "--redis_password"}, arity = "0..1", hidden = true)
    List<String> ignored;

    @Override
    public Integer call() {
        if (address == null || address.isBlank() || address.equals("auto")) {
            var node = Discovery.find(tempDir, "health-check");
            if (node == null) return 1;
            try (DaemonClient ignoredClient = new DaemonClient(Path.of(node.path("socket").asText()))) {
                return 0;
            } catch (IOException e) {
                System.err.println("beam: the local daemon does not answer: " + e.getMessage());
                return 1;
            }
        }
        int colon = address.lastIndexOf(':');
        int port;
        try {
            port = Integer.parseInt(address.substring(colon + 1));
        } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
            System.err.println("beam: --address must be HOST:PORT, not '" + address + "'");
            return 2;
        }
        String host = colon > 0 ? address.substring(0, colon) : "127.0.0.1";
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MILLIS);
            return 0;
        } catch (IOException e) {
            System.err.println("beam: nothing answers at " + address + " (" + e.getMessage() + ")");
            return 1;
        }
    }
}
