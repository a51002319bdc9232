package beam.connection;

import static org.assertj.core.api.Assertions.assertThat;

import beam.codec.Frame;
import beam.codec.FrameCodec;
import beam.codec.FrameLimits;
import beam.util.Await;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A TCP {@link Listener} over real sockets: which connections get platform threads with
 * direct writes and which virtual threads, and that both kinds serve.
 */
@Timeout(60)
class ListenerTest {
    private static final FrameCodec CODEC = new FrameCodec(FrameLimits.DEFAULT);

    /** Each connection answers every frame with {"op": "echo", "virtual": whether its reader thread is virtual}. */
    private static void echo(Connection c) {
        try {
            Frame f;
            while ((f = c.read()) != null) {
                var h = JsonNodeFactory.instance.objectNode().put("op", "echo")
                        .put("virtual", Thread.currentThread().isVirtual()).put("n", f.header().path("n").asInt());
                c.send(new Frame(h));
            }
        } catch (Exception e) {
            // peer gone
        }
    }

    private static boolean servedVirtually(SocketChannel client, int n) throws Exception {
        var h = JsonNodeFactory.instance.objectNode().put("op", "ping").put("n", n);
        client.write(java.nio.ByteBuffer.wrap(FrameCodec.encode(new Frame(h))));
        Frame reply = CODEC.decode(new DataInputStream(Channels.newInputStream(client)));
        assertThat(reply.header().get("n").asInt()).isEqualTo(n);
        return reply.header().get("virtual").asBoolean();
    }

    @Test
    void theFirstTcpConnectionsGetPlatformThreadsTheRestVirtualOnesAndAllServe() throws Exception {
        BlockingQueue<Connection> accepted = new LinkedBlockingQueue<>();
        try (Listener listener = Listener.tcp(new InetSocketAddress("127.0.0.1", 0), CODEC, 1000, c -> {
            accepted.add(c);
            echo(c);
        }).start()) {
            List<SocketChannel> clients = new ArrayList<>();
            try {
                List<Boolean> virtual = new ArrayList<>();
                for (int i = 0; i < Listener.DIRECT_TCP_CONNECTIONS + 2; i++) {
                    SocketChannel client = SocketChannel.open(listener.localAddress());
                    clients.add(client);
                    virtual.add(servedVirtually(client, i));
                }
                assertThat(virtual.subList(0, Listener.DIRECT_TCP_CONNECTIONS)).containsOnly(false);
                assertThat(virtual.subList(Listener.DIRECT_TCP_CONNECTIONS, virtual.size())).containsOnly(true);

                // a platform connection that closes gives its place to the next one
                Connection first = accepted.poll(10, TimeUnit.SECONDS);
                clients.get(0).close();
                Await.until(() -> listener.directSlotsFree() > 0, "the closed connection gave back its direct slot");
                assertThat(first.isOpen()).isFalse();
                assertThat(listener.directSlotsFree()).isEqualTo(1);
                SocketChannel again = SocketChannel.open(listener.localAddress());
                clients.add(again);
                assertThat(servedVirtually(again, 99)).isFalse();
            } finally {
                for (SocketChannel c : clients) closeQuietly(c);
            }
        }
    }

    private static void closeQuietly(SocketChannel c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // test cleanup
        }
    }
}
