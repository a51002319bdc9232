package beam.cli;

import beam.config.Environment;
import beam.protocol.Request;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.LongFunction;
import picocli.CommandLine.Option;

/**
 * The one way the commands that ask a running cluster ({@code status}, {@code list},
 * {@code doctor}, {@code health-check}) reach this machine's daemon: find it (the
 * {@link Discovery} rules, which print why when there is none), send it one request, and
 * hand back the reply without its envelope. As a picocli mixin it is also their
 * {@code --temp-dir} and {@code --address} options.
 */
final class LocalDaemon {
    @Option(names = "--temp-dir", description = "Root of the session directories (default: $RAY_TMPDIR, else $TMPDIR/ray or /tmp/ray; else any one daemon of yours).")
    String tempDir;

    @Option(names = "--address", description = "The cluster's HOST:PORT (default: $RAY_ADDRESS): the local daemon serving it answers.")
    String address;

    /**
     * The daemon's reply to the request {@code withRid} makes (of the request id the client
     * gives it, e.g. {@code Request.Status::new}) for {@code command}, or null after printing
     * why no daemon answers.
     */
    ObjectNode ask(Environment env, String command, LongFunction<Request> withRid) throws IOException {
        return ask(env, tempDir, address, command, withRid);
    }

    /** The same for a command with options of its own ({@code address} null: $RAY_ADDRESS, as Discovery reads it). */
    static ObjectNode ask(Environment env, String tempDir, String address, String command, LongFunction<Request> withRid)
            throws IOException {
        ObjectNode running = Discovery.find(env, tempDir, command, address);
        if (running == null) return null;
        try (DaemonClient client = new DaemonClient(Path.of(running.path("socket").asText()), env)) {
            ObjectNode reply = client.request(withRid);
            reply.remove(List.of("op", "rid", "ok"));
            return reply;
        }
    }
}
