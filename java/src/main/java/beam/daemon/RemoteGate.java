package beam.daemon;

import beam.codec.Frame;
import beam.codec.FrameException;
import beam.connection.Connection;
import beam.protocol.Frames;
import java.io.IOException;

/**
 * The TCP port's door. Node joins and remote drivers need token authentication, which
 * arrives with multi-node support; until then every TCP peer gets a clear refusal after
 * its first frame, and nothing it sends reaches the cluster state.
 */
final class RemoteGate {
    private final Connection connection;

    RemoteGate(Connection connection) {
        this.connection = connection;
    }

    void run() {
        try {
            Frame first = connection.read();
            if (first == null) return;
            long rid = first.header().path("rid").asLong(-1);
            connection.send(Frames.error(rid, "ConnectionError", "this beam daemon does not accept drivers or nodes over "
                    + "TCP yet: run the driver on this machine (it connects through the local unix socket)"));
            // Keep reading (and dropping) what the peer already sent: closing with unread
            // bytes would make the kernel reset the connection and lose the reply.
            Thread.ofVirtual().start(() -> {
                try {
                    while (connection.read() != null) {
                        // discard
                    }
                } catch (FrameException | IOException ignored) {
                    // gone
                }
            });
            connection.closeAfterFlush();
        } catch (FrameException | IOException e) {
            connection.close();
        }
    }
}
