package beam.cli;

import static org.assertj.core.api.Assertions.assertThat;

import beam.codec.Frame;
import beam.codec.FrameCodec;
import beam.codec.FrameLimits;
import beam.protocol.Frames;
import beam.util.ManualScheduler;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The CLI's reply timeout on a hand-moved clock: a daemon that never answers, without waiting 60 s. */
@Timeout(30)
class DaemonClientTimeoutTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private final ManualScheduler clock = new ManualScheduler();
    @TempDir
    Path temp;

    @Test
    void aDaemonThatDoesNotAnswerFailsTheRequestWhenTheTimeoutEndsSayingWhatToDo() throws Exception {
        Path socket = temp.resolve("d.sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            CompletableFuture<DaemonClient> client = CompletableFuture.supplyAsync(() -> {
                try {
                    return new DaemonClient(socket, TIMEOUT, clock); // its hello waits for a reply
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            try (SocketChannel stuck = server.accept()) {
                clock.awaitPending(n -> n == 1, 20_000); // the hello is waiting
                clock.advance(TIMEOUT.toMillis() - 1);
                assertThat(client).isNotDone();
                clock.advance(1);
                ExecutionException failed = org.assertj.core.api.Assertions.catchThrowableOfType(
                        () -> client.get(20, TimeUnit.SECONDS), ExecutionException.class);
                assertThat(failed.getCause()).hasMessageContaining("did not answer 'hello' within 60 s")
                        .hasMessageContaining("`ray stop --force`");
            }
        }
    }

    @Test
    void anAnsweredRequestLeavesNoTimerBehind() throws Exception {
        Path socket = temp.resolve("a.sock");
        FrameCodec codec = new FrameCodec(FrameLimits.DEFAULT);
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            CompletableFuture<Void> daemon = CompletableFuture.runAsync(() -> {
                try (SocketChannel peer = server.accept()) {
                    Frame hello = codec.decode(new DataInputStream(Channels.newInputStream(peer)));
                    ObjectNode reply = Frames.header("reply");
                    reply.put("rid", hello.header().path("rid").asLong());
                    reply.put("ok", true);
                    Channels.newOutputStream(peer).write(FrameCodec.encode(new Frame(reply)));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            try (DaemonClient client = new DaemonClient(socket, TIMEOUT, clock)) {
                daemon.get(20, TimeUnit.SECONDS);
                assertThat(clock.pending()).isZero();
            }
        }
    }
}
