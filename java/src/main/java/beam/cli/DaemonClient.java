package beam.cli;

import beam.codec.Frame;
import beam.codec.FrameCodec;
import beam.codec.FrameException;
import beam.codec.FrameLimits;
import beam.protocol.Frames;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;

/** A minimal blocking client for the CLI: hello, then one request at a time. */
final class DaemonClient implements AutoCloseable {
    private final SocketChannel channel;
    private final InputStream in;
    private final OutputStream out;
    private final FrameCodec codec = new FrameCodec(FrameLimits.DEFAULT);
    private long nextRid = 1;

    DaemonClient(Path socket) throws IOException {
        channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        channel.connect(UnixDomainSocketAddress.of(socket));
        in = new BufferedInputStream(Channels.newInputStream(channel));
        out = Channels.newOutputStream(channel);
        ObjectNode hello = Frames.header("hello");
        hello.put("proto", beam.dispatch.Session.PROTOCOL_VERSION);
        hello.put("role", "driver");
        hello.put("pid", ProcessHandle.current().pid());
        hello.put("log_to_driver", false);
        request(hello);
    }

    /** Sends {@code header} as a request and returns the reply; throws with the daemon's error text. */
    ObjectNode request(ObjectNode header) throws IOException {
        header.put("rid", nextRid++);
        out.write(FrameCodec.encode(new Frame(header)));
        out.flush();
        while (true) {
            Frame f;
            try {
                f = codec.decode(in);
            } catch (FrameException e) {
                throw new IOException("bad frame from the daemon: " + e.getMessage());
            }
            if (f == null) throw new IOException("the daemon closed the connection");
            if (!f.op().equals("reply")) continue;
            if (!f.header().path("ok").asBoolean()) throw new IOException(f.header().path("error").asText());
            return f.header();
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
