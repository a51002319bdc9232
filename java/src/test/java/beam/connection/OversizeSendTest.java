package beam.connection;

import static org.assertj.core.api.Assertions.assertThat;

import beam.codec.Frame;
import beam.codec.FrameCodec;
import beam.codec.FrameLimits;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.DataInputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A frame over the receiver's limits is not sent (the receiver would cut the link on it): a
 * reply becomes an error reply and a result a failed result naming the limit, and the
 * connection goes on (issue 26).
 */
@Timeout(30)
class OversizeSendTest {
    private static final FrameCodec SMALL = new FrameCodec(new FrameLimits(1024, 4096));

    @TempDir
    Path temp;

    @Test
    void anOversizeReplyOrResultBecomesAnErrorAndTheLinkStaysUp() throws Exception {
        Path path = temp.resolve("s.sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(path));
            try (SocketChannel peer = SocketChannel.open(UnixDomainSocketAddress.of(path));
                 Connection c = new Connection(Transport.nonBlocking(server.accept()), SMALL, "test",
                         Thread.ofPlatform().daemon())) {
                DataInputStream in = new DataInputStream(Channels.newInputStream(peer));
                ObjectNode reply = FrameCodec.json().createObjectNode().put("op", "reply").put("rid", 7).put("ok", true);
                reply.put("table", "x".repeat(5000));
                c.send(new Frame(reply));
                ObjectNode result = FrameCodec.json().createObjectNode().put("op", "result").put("oid", "ab")
                        .put("status", "ok");
                c.send(new Frame(result, new byte[5000]));
                c.send(new Frame(FrameCodec.json().createObjectNode().put("op", "push").put("big", "y".repeat(5000))));
                c.send(new Frame(FrameCodec.json().createObjectNode().put("op", "reply").put("rid", 8).put("ok", true)));

                ObjectNode first = SMALL.decode(in).header();
                assertThat(first.path("rid").asLong()).isEqualTo(7);
                assertThat(first.path("ok").asBoolean()).isFalse();
                assertThat(first.path("error").asText()).contains("max_header_bytes").contains("1024");
                ObjectNode second = SMALL.decode(in).header();
                assertThat(second.path("oid").asText()).isEqualTo("ab");
                assertThat(second.path("status").asText()).isEqualTo("error");
                assertThat(second.path("message").asText()).contains("max_payload_bytes").contains("4096");
                // the oversize push was dropped; the next reply arrives on the same link
                ObjectNode third = SMALL.decode(in).header();
                assertThat(third.path("rid").asLong()).isEqualTo(8);
                assertThat(third.path("ok").asBoolean()).isTrue();
                assertThat(c.isOpen()).isTrue();
            }
        }
    }
}
