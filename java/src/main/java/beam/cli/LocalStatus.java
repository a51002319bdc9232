package beam.cli;

import beam.config.Environment;
import beam.protocol.Frames;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** Asks this machine's daemon for the cluster status (what `ray status` and `ray list` show). */
final class LocalStatus {
    private LocalStatus() {
    }

    /** The status reply, or null after printing why there is none. */
    static ObjectNode fetch(Environment env, String tempDir, String command, String address) throws IOException {
        ObjectNode running = Discovery.find(env, tempDir, command, address);
        if (running == null) return null;
        try (DaemonClient client = new DaemonClient(Path.of(running.path("socket").asText()), env)) {
            ObjectNode status = client.request(Frames.header("status"));
            status.remove(List.of("op", "rid", "ok"));
            return status;
        }
    }
}
