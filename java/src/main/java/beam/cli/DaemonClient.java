package beam.cli;

import beam.codec.Frame;
import beam.codec.FrameCodec;
import beam.codec.FrameException;
import beam.codec.FrameLimits;
import beam.config.Environment;
import beam.protocol.Protocol;
import beam.protocol.Request;
import beam.protocol.RequestCodec;
import beam.util.Scheduler;
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
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongFunction;

/**
 * A minimal blocking client for the CLI: hello, then one request at a time. A daemon that
 * does not answer within the reply timeout ({@link Environment#cliTimeout()}: stuck, or
 * paused under a debugger) makes the request fail with a message that says so, instead of
 * hanging the CLI.
 */
final class DaemonClient implements AutoCloseable {
    private final Path socket;
    private final Duration replyTimeout;
    private final Scheduler scheduler;
    private final SocketChannel channel;
    private final InputStream in;
    private final OutputStream out;
    private final FrameCodec codec = new FrameCodec(FrameLimits.DEFAULT);
    private long nextRid = 1;

    DaemonClient(Path socket, Environment env) throws IOException {
        this(socket, env.cliTimeout(), Scheduler.system());
    }

    /** {@code scheduler} times the reply timeout (a manual one in tests). */
    DaemonClient(Path socket, Duration replyTimeout, Scheduler scheduler) throws IOException {
        this.socket = socket;
        this.replyTimeout = replyTimeout;
        this.scheduler = scheduler;
        channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        channel.connect(UnixDomainSocketAddress.of(socket));
        in = new BufferedInputStream(Channels.newInputStream(channel));
        out = Channels.newOutputStream(channel);
        // no python, cwd or sys_path: the CLI has no Python stack to dump nor actors to start like itself
        request(rid -> new Request.Hello(rid, Protocol.VERSION, "driver", null, ProcessHandle.current().pid(), null, null,
                List.of(), false, null));
    }

    /** The daemon answered and refused the request (bad input): its words say why. */
    static final class Refused extends IOException {
        Refused(String message) {
            super(message);
        }
    }

    /**
     * Sends the request {@code withRid} makes of the next request id and returns the reply;
     * throws with the daemon's error text.
     */
    ObjectNode request(LongFunction<Request> withRid) throws IOException {
        Request request = withRid.apply(nextRid++);
        ObjectNode header = RequestCodec.encode(request);
        AtomicBoolean timedOut = new AtomicBoolean();
        Scheduler.Timer watchdog = scheduler.after(replyTimeout.toMillis(), () -> {
            timedOut.set(true);
            try {
                channel.close(); // the read below fails at once
            } catch (IOException ignored) {
                // closed already
            }
        });
        try {
            out.write(FrameCodec.encode(new Frame(header)));
            out.flush();
            while (true) {
                Frame f = codec.decode(in);
                if (f == null) throw new IOException("the daemon closed the connection");
                if (!f.op().equals("reply")) continue;
                if (!f.header().path("ok").asBoolean()) throw new Refused(f.header().path("error").asText());
                return withBody(f);
            }
        } catch (FrameException e) {
            throw new IOException("bad frame from the daemon: " + e.getMessage());
        } catch (IOException e) {
            if (!timedOut.get()) throw e;
            throw new IOException("the beam daemon on " + socket + " did not answer '" + RequestCodec.op(request.getClass())
                    + "' within " + replyTimeout.toSeconds() + " s; it may be stuck. Its log is beamd.log in the session"
                    + " directory (`ray status` names it); `ray stop --force` ends it.");
        } finally {
            watchdog.cancel();
        }
    }

    /** The reply's fields: its header's, and those of a JSON body in its payload (Frames.okWithBody). */
    private static ObjectNode withBody(Frame f) throws IOException {
        ObjectNode h = f.header();
        if (!"json".equals(h.path("body").asText())) return h;
        if (!(FrameCodec.json().readTree(f.payload()) instanceof ObjectNode body)) {
            throw new IOException("the daemon's reply body is not a JSON object");
        }
        h.remove("body"); // how the reply travelled, not part of it
        body.fieldNames().forEachRemaining(n -> h.set(n, body.get(n)));
        return h;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
