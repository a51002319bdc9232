package beam.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import beam.auth.TokenAuth;
import beam.codec.Frame;
import beam.codec.FrameCodec;
import beam.codec.FrameLimits;
import beam.link.Heartbeat;
import beam.util.Await;
import beam.util.Ids;
import beam.views.ClusterViews;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A head and joined nodes in-process on loopback: auth, join, leave, loss. */
@Timeout(60)
class NodeLinkTest {
    @TempDir
    Path temp;
    Daemon head;
    String token = TokenAuth.newToken();
    int port;

    @BeforeEach
    void startHead() throws IOException {
        DaemonConfig config = new DaemonConfig(0, 2, 2, null, "127.0.0.1", temp.resolve("head"), 0, FrameLimits.DEFAULT,
                64, null, token, new Heartbeat(100, 600), null, 0);
        head = new Daemon(config, SessionDir.create(temp.resolve("head"))).start();
        port = Integer.parseInt(head.gcsAddress().substring(head.gcsAddress().lastIndexOf(':') + 1));
    }

    @AfterEach
    void stop() {
        head.shutdown();
    }

    private MemberDaemon join(String ip, String withToken) throws IOException {
        Path dir = temp.resolve("node-" + ip);
        DaemonConfig config = new DaemonConfig(0, 2, 2, null, ip, dir, 0, FrameLimits.DEFAULT, 64,
                "127.0.0.1:" + port, withToken, new Heartbeat(100, 600), null, 0);
        return new MemberDaemon(config, SessionDir.create(dir)).start();
    }

    private JsonNode node(String ip) {
        for (JsonNode n : ClusterViews.state(head.cluster()).get("nodes")) {
            if (n.get("NodeManagerAddress").asText().equals(ip)) return n;
        }
        return null;
    }

    /**
     * The node as the head lists it, once it is listed: the head answers a join before it adds
     * the node (HeadGate), so a join that just returned may not be listed yet.
     */
    private JsonNode joined(String ip) {
        Await.until(() -> node(ip) != null, "the head lists node " + ip + " after its join returned");
        return node(ip);
    }

    @Test
    void nodeJoinsWithTheRightTokenAndAddsItsResources() throws Exception {
        MemberDaemon member = join("127.0.0.2", token);
        try {
            JsonNode n = joined("127.0.0.2");
            assertThat(n).isNotNull();
            assertThat(n.get("Alive").asBoolean()).isTrue();
            assertThat(n.get("Resources").get("node:127.0.0.2").asDouble()).isEqualTo(1.0);
            assertThat(n.get("Resources").has("node:__internal_head__")).isFalse();
            assertThat(ClusterViews.state(head.cluster()).get("total").get("GPU").asDouble()).isEqualTo(4.0);
        } finally {
            member.shutdown();
        }
    }

    @Test
    void wrongOrMissingTokenIsRefusedWithHowToFixIt() {
        assertThatThrownBy(() -> join("127.0.0.3", "not-the-token"))
                .hasMessageContaining("authentication failed").hasMessageContaining("RAY_AUTH_TOKEN");
        assertThatThrownBy(() -> join("127.0.0.4", null)).hasMessageContaining("RAY_AUTH_TOKEN");
        assertThat(node("127.0.0.3")).isNull();
        assertThat(node("127.0.0.4")).isNull();
    }

    @Test
    void cleanLeaveIsNoticedAtOnce() throws Exception {
        MemberDaemon member = join("127.0.0.5", token);
        assertThat(joined("127.0.0.5")).isNotNull();
        member.shutdown();
        Await.until(() -> !node("127.0.0.5").get("Alive").asBoolean(), "node 127.0.0.5 listed dead after it left");
        JsonNode n = node("127.0.0.5");
        // "left", not the heartbeat timeout's "no heartbeat": noticed from the leave itself, not a timer
        assertThat(n.get("DeathReasonMessage").asText()).contains("left").doesNotContain("no heartbeat");
        assertThat(ClusterViews.state(head.cluster()).get("total").get("GPU").asDouble()).isEqualTo(2.0);
    }

    /** A raw TCP peer: reads the challenge, then sends what the test says. */
    private JsonNode rawAttempt(java.util.function.Function<String, ObjectNode> firstFrame) throws Exception {
        try (SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port))) {
            DataInputStream in = new DataInputStream(Channels.newInputStream(ch));
            FrameCodec codec = new FrameCodec(FrameLimits.DEFAULT);
            Frame challenge = codec.decode(in);
            assertThat(challenge.op()).isEqualTo("challenge");
            ch.write(ByteBuffer.wrap(FrameCodec.encode(new Frame(firstFrame.apply(challenge.header().get("nonce").asText())))));
            Frame reply = codec.decode(in);
            if (!reply.header().get("ok").asBoolean()) {
                assertThat(codec.decode(in)).as("connection closed after refusal").isNull();
            }
            return reply.header();
        }
    }

    private static ObjectNode join(String auth) {
        ObjectNode h = FrameCodec.json().createObjectNode().put("op", "join").put("rid", 1).put("proto", 1)
                .put("node_id", Ids.nodeId()).put("node_ip", "127.0.0.9");
        if (auth != null) h.put("auth", auth);
        h.putObject("resources").put("CPU", 1);
        return h;
    }

    @Test
    void aPeerThatSkipsTheHandshakeIsRefusedBeforeAnythingElse() throws Exception {
        JsonNode reply = rawAttempt(nonce -> FrameCodec.json().createObjectNode().put("op", "hello").put("rid", 1)
                .put("proto", 1).put("role", "driver"));
        assertThat(reply.get("ok").asBoolean()).isFalse();
        assertThat(reply.get("error").asText()).contains("join");
        assertThat(node("127.0.0.9")).isNull();
    }

    @Test
    void aReplayedAnswerFailsAgainstAFreshNonce() throws Exception {
        String[] captured = new String[1];
        JsonNode ok = rawAttempt(nonce -> {
            captured[0] = new TokenAuth(token).answer(nonce);
            return join(captured[0]);
        });
        assertThat(ok.get("ok").asBoolean()).as("the genuine join is accepted").isTrue();
        JsonNode replay = rawAttempt(nonce -> join(captured[0]));
        assertThat(replay.get("ok").asBoolean()).isFalse();
        assertThat(replay.get("error").asText()).contains("authentication failed");
    }

    @Test
    void joinResourcesThatDoNotReadAreRefusedOnlyOnceTheTokenIsProven() throws Exception {
        java.util.function.Function<String, ObjectNode> textAmount = answer -> {
            ObjectNode h = join(answer);
            h.putObject("resources").put("GPU", "four");
            return h;
        };
        JsonNode stranger = rawAttempt(nonce -> textAmount.apply("not-the-answer"));
        assertThat(stranger.get("error").asText()).contains("authentication failed");
        JsonNode text = rawAttempt(nonce -> textAmount.apply(new TokenAuth(token).answer(nonce)));
        assertThat(text.get("ok").asBoolean()).isFalse();
        assertThat(text.get("error").asText()).isEqualTo("join resources: amount of 'GPU' must be a number, got \"four\"");
        JsonNode negative = rawAttempt(nonce -> {
            ObjectNode h = join(new TokenAuth(token).answer(nonce));
            h.putObject("resources").put("GPU", -1);
            return h;
        });
        assertThat(negative.get("error").asText()).isEqualTo("join resources: amount of 'GPU' must be non-negative (>= 0), got -1.0");
        assertThat(node("127.0.0.9")).as("a refused node is not listed").isNull();
    }

    /** A raw TCP peer that joins with the right token as node 127.0.0.9, then does what the test says. */
    private SocketChannel rawJoin() throws Exception {
        SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
        DataInputStream in = new DataInputStream(Channels.newInputStream(ch));
        FrameCodec codec = new FrameCodec(FrameLimits.DEFAULT);
        String nonce = codec.decode(in).header().get("nonce").asText();
        ch.write(ByteBuffer.wrap(FrameCodec.encode(new Frame(join(new TokenAuth(token).answer(nonce))))));
        assertThat(codec.decode(in).header().get("ok").asBoolean()).isTrue();
        return ch;
    }

    @Test
    void silentNodeIsDeclaredLostAfterTheTimeout() throws Exception {
        // A node that joins and then says nothing (no heartbeats): the head must give up on it.
        try (SocketChannel ch = rawJoin()) {
            assertThat(joined("127.0.0.9")).isNotNull();
            Await.until(() -> !node("127.0.0.9").get("Alive").asBoolean(), "the silent node 127.0.0.9 declared dead");
            assertThat(node("127.0.0.9").get("DeathReasonMessage").asText()).contains("no heartbeat");
        }
    }

    @Test
    void aBadOrUnknownLinkFrameIsDroppedAndTheLinkStays() throws Exception {
        try (SocketChannel ch = rawJoin()) {
            assertThat(joined("127.0.0.9")).isNotNull();
            ObjectNode bad = FrameCodec.json().createObjectNode().put("op", "actor_started")
                    .put("actor_id", "0123456789abcdef0123456701000000").put("pid", "many");
            ch.write(ByteBuffer.wrap(FrameCodec.encode(new Frame(bad))));
            ch.write(ByteBuffer.wrap(FrameCodec.encode(new Frame(FrameCodec.json().createObjectNode().put("op", "no_such_op")))));
            // read after the bad frames: had they cut the link, the node would be lost for that instead
            ch.write(ByteBuffer.wrap(FrameCodec.encode(new Frame(FrameCodec.json().createObjectNode().put("op", "node_leave")))));
            Await.until(() -> !node("127.0.0.9").get("Alive").asBoolean(), "node 127.0.0.9 listed dead after node_leave");
            assertThat(node("127.0.0.9").get("DeathReasonMessage").asText()).contains("left the cluster");
        }
    }

    @Test
    void tokenFileIsOwnerOnly() throws Exception {
        Path file = temp.resolve("head").resolve("session_latest").resolve(TokenAuth.TOKEN_FILE);
        assertThat(Files.readString(file).trim()).isEqualTo(token);
        assertThat(Files.getPosixFilePermissions(file)).hasSize(2);
    }
}
