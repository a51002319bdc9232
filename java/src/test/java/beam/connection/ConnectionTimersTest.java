package beam.connection;

import static org.assertj.core.api.Assertions.assertThat;

import beam.codec.Frame;
import beam.codec.FrameCodec;
import beam.codec.FrameLimits;
import beam.util.ManualScheduler;
import beam.util.Scheduler;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A connection's timers (the flush grace, handshake deadlines) on a hand-moved clock: no sleeping. */
@Timeout(30)
class ConnectionTimersTest {
    private static final FrameCodec CODEC = new FrameCodec(FrameLimits.DEFAULT);
    @TempDir
    Path temp;
    private final ManualScheduler clock = new ManualScheduler();
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : toClose) c.close();
    }

    private record Pair(Connection daemonSide, SocketChannel peer) {
    }

    private Pair pair() throws IOException {
        Path path = temp.resolve("t.sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(path));
            SocketChannel peer = SocketChannel.open(UnixDomainSocketAddress.of(path));
            SocketChannel accepted = server.accept();
            Files.delete(path);
            Connection c = new Connection(Transport.nonBlocking(accepted), CODEC, "timed", Thread.ofPlatform().daemon(),
                    Connection.MAX_QUEUED_BYTES, clock);
            toClose.add(c);
            toClose.add(peer);
            return new Pair(c, peer);
        }
    }

    private static Frame frame(int payloadBytes) {
        ObjectNode h = JsonNodeFactory.instance.objectNode();
        h.put("op", "t");
        return new Frame(h, new byte[payloadBytes]);
    }

    @Test
    void aPeerThatDoesNotReadIsCutOffExactlyWhenTheFlushGraceEnds() throws Exception {
        Pair p = pair();
        for (int i = 0; i < 8; i++) p.daemonSide().send(frame(1 << 20)); // far more than the socket buffers hold
        p.daemonSide().closeAfterFlush();
        assertThat(clock.pending()).isEqualTo(1);
        clock.advance(Connection.FLUSH_GRACE_MILLIS - 1);
        assertThat(p.daemonSide().isOpen()).as("still flushing within the grace").isTrue();
        clock.advance(1);
        assertThat(p.daemonSide().isOpen()).as("cut off when the grace ends").isFalse();
    }

    @Test
    void aPeerThatReadsIsClosedOnceFlushedAndTheForcedCloseIsCancelled() throws Exception {
        Pair p = pair();
        p.daemonSide().send(frame(1 << 20));
        p.daemonSide().closeAfterFlush();
        DataInputStream in = new DataInputStream(Channels.newInputStream(p.peer()));
        assertThat(CODEC.decode(in).payload()).hasSize(1 << 20);
        assertThat(CODEC.decode(in)).as("closed after the last frame").isNull();
        clock.awaitPending(n -> n == 0, 20_000); // the close, right after the peer's EOF, cancels the forced one
        assertThat(p.daemonSide().isOpen()).isFalse();
    }

    @Test
    void aDeadlineClosesTheConnectionWhenDueUnlessCancelledFirst() throws Exception {
        Pair missed = pair();
        Scheduler.Timer deadline = missed.daemonSide().closeUnlessCancelled(3_000);
        clock.advance(2_999);
        assertThat(missed.daemonSide().isOpen()).isTrue();
        clock.advance(1);
        assertThat(missed.daemonSide().isOpen()).isFalse();
        deadline.cancel(); // after it ran: nothing

        Pair met = pair();
        met.daemonSide().closeUnlessCancelled(3_000).cancel();
        assertThat(clock.pending()).isZero();
        clock.advance(10_000);
        assertThat(met.daemonSide().isOpen()).isTrue();
    }
}
