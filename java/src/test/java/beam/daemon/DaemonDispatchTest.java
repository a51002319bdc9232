package beam.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import beam.codec.Frame;
import beam.codec.FrameCodec;
import beam.codec.FrameLimits;
import beam.util.Ids;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The daemon in-process on a temp unix socket, fed raw and malformed frames. */
@Timeout(30)
class DaemonDispatchTest {
    @TempDir
    static Path temp;
    static Daemon daemon;

    @BeforeAll
    static void start() throws IOException {
        DaemonConfig config = new DaemonConfig(0, 2, 4, "{\"custom\": 2}", "127.0.0.1", temp, 0,
                new FrameLimits(4096, 1 << 20), 64, null, "test-token", beam.link.Heartbeat.DEFAULT, null, 0);
        daemon = new Daemon(config, SessionDir.create(temp)).start();
    }

    @AfterAll
    static void stop() {
        daemon.shutdown();
    }

    /** A raw protocol client. */
    static final class Raw implements AutoCloseable {
        final SocketChannel ch;
        final DataInputStream in;
        final FrameCodec codec = new FrameCodec(FrameLimits.DEFAULT);
        long rid;
        final java.util.ArrayDeque<Frame> stash = new java.util.ArrayDeque<>();

        Raw() throws IOException {
            ch = SocketChannel.open(StandardProtocolFamily.UNIX);
            ch.connect(UnixDomainSocketAddress.of(daemon.socketPath()));
            in = new DataInputStream(Channels.newInputStream(ch));
        }

        void sendBytes(byte[] b) throws IOException {
            ByteBuffer buf = ByteBuffer.wrap(b);
            while (buf.hasRemaining()) ch.write(buf);
        }

        void send(ObjectNode h, byte[] payload) throws IOException {
            sendBytes(FrameCodec.encode(new Frame(h, payload)));
        }

        ObjectNode request(String json) throws Exception {
            ObjectNode h = (ObjectNode) FrameCodec.json().readTree(json);
            h.put("rid", ++rid);
            send(h, new byte[0]);
            while (true) {
                Frame f = codec.decode(in);
                if (f == null) return null;
                if (f.op().equals("reply")) return withBody(f);
                stash.add(f);
            }
        }

        /** The reply's header, with the fields of a JSON body in its payload merged in (Frames.okWithBody). */
        private static ObjectNode withBody(Frame f) throws Exception {
            ObjectNode h = f.header();
            if ("json".equals(h.path("body").asText())) h.setAll((ObjectNode) FrameCodec.json().readTree(f.payload()));
            return h;
        }

        Frame read() throws Exception {
            return stash.isEmpty() ? codec.decode(in) : stash.poll();
        }

        ObjectNode hello() throws Exception {
            return request("{\"op\":\"hello\",\"proto\":1,\"role\":\"driver\",\"pid\":1}");
        }

        @Override
        public void close() throws IOException {
            ch.close();
        }
    }

    @Test
    void helloAnswersNodeAndJob() throws Exception {
        try (Raw c = new Raw()) {
            ObjectNode r = c.hello();
            assertThat(r.get("ok").asBoolean()).isTrue();
            assertThat(r.get("node_id").asText()).hasSize(56);
            assertThat(r.get("job_id").asText()).hasSize(8);
            assertThat(r.get("node_ip").asText()).isEqualTo("127.0.0.1");
        }
    }

    @Test
    void firstFrameMustBeHello() throws Exception {
        try (Raw c = new Raw()) {
            ObjectNode r = c.request("{\"op\":\"status\"}");
            assertThat(r).isNotNull();
            assertThat(r.get("ok").asBoolean()).isFalse();
            assertThat(r.get("error").asText()).contains("hello");
            assertThat(c.read()).isNull();
        }
    }

    @Test
    void wrongProtocolVersionNamesBoth() throws Exception {
        try (Raw c = new Raw()) {
            ObjectNode r = c.request("{\"op\":\"hello\",\"proto\":99,\"role\":\"driver\"}");
            assertThat(r.get("error").asText()).contains("1").contains("99");
        }
    }

    @Test
    void unknownOpAndBadFieldsGetErrorsAndTheConnectionLives() throws Exception {
        try (Raw c = new Raw()) {
            c.hello();
            ObjectNode r = c.request("{\"op\":\"frobnicate\"}");
            assertThat(r.get("ok").asBoolean()).isFalse();
            assertThat(r.get("error").asText()).contains("unknown op 'frobnicate'");
            r = c.request("{\"op\":\"kill\",\"actor_id\":42}");
            assertThat(r.get("error").asText()).contains("actor_id");
            r = c.request("{\"op\":\"kill\",\"actor_id\":\"" + Ids.randomHex(16) + "\"}");
            assertThat(r.get("error").asText()).contains("No actor");
            r = c.request("{\"op\":\"pg_create\",\"pg_id\":\"" + Ids.randomHex(18)
                    + "\",\"strategy\":\"DIAGONAL\",\"bundles\":[{\"GPU\":1}]}");
            assertThat(r.get("error").asText()).contains("DIAGONAL");
            r = c.request("{\"op\":\"pg_create\",\"pg_id\":\"" + Ids.randomHex(18)
                    + "\",\"strategy\":\"PACK\",\"bundles\":[{\"GPU\":-1}]}");
            assertThat(r.get("error").asText()).contains(">= 0");
            assertThat(c.request("{\"op\":\"cluster_state\"}").get("ok").asBoolean()).isTrue();
        }
    }

    @Test
    void callToUnknownActorGetsAnErrorResult() throws Exception {
        try (Raw c = new Raw()) {
            c.hello();
            String oid = Ids.randomHex(28);
            ObjectNode h = FrameCodec.json().createObjectNode().put("op", "call").put("actor_id", Ids.randomHex(16))
                    .put("oid", oid).put("method", "m");
            c.send(h, new byte[] {1, 2});
            Frame f = c.read();
            assertThat(f.op()).isEqualTo("result");
            assertThat(f.header().get("oid").asText()).isEqualTo(oid);
            assertThat(f.header().get("status").asText()).isEqualTo("error");
        }
    }

    @Test
    void aCallWithABadLabelGetsAnErrorResultNamingTheField() throws Exception {
        try (Raw c = new Raw()) {
            c.hello();
            String oid = Ids.randomHex(28);
            ObjectNode h = FrameCodec.json().createObjectNode().put("op", "call").put("actor_id", Ids.randomHex(16))
                    .put("oid", oid).put("method", "m").put("label", "x".repeat(65));
            c.send(h, new byte[] {1, 2});
            Frame f = c.read();
            assertThat(f.op()).isEqualTo("result");
            assertThat(f.header().get("oid").asText()).isEqualTo(oid);
            assertThat(f.header().get("status").asText()).isEqualTo("error");
            assertThat(f.header().get("message").asText()).contains("'label'").contains("64");
        }
    }

    /** The relay fast path (Session.relay): both plain forms, sent by a client they do not belong to. */
    @Test
    void plainCallAndResultFromTheWrongClientAreAnsweredOrDroppedAndTheConnectionLives() throws Exception {
        try (Raw c = new Raw()) {
            c.hello();
            String oid = Ids.randomHex(28);
            c.sendBytes(FrameCodec.encode(new Frame((ObjectNode) FrameCodec.json().readTree(
                    "{\"op\":\"result\",\"oid\":\"" + oid + "\",\"status\":\"ok\"}"), new byte[] {7})));
            String callOid = Ids.randomHex(28);
            c.sendBytes(FrameCodec.encode(new Frame((ObjectNode) FrameCodec.json().readTree("{\"op\":\"call\",\"actor_id\":\""
                    + Ids.randomHex(16) + "\",\"oid\":\"" + callOid + "\",\"method\":\"m\",\"plen\":1}"), new byte[] {1})));
            Frame f = c.read(); // a driver's result has no caller: dropped, so the call's answer comes first
            assertThat(f.op()).isEqualTo("result");
            assertThat(f.header().get("oid").asText()).isEqualTo(callOid);
            assertThat(f.header().get("status").asText()).isEqualTo("error");
            assertThat(c.request("{\"op\":\"cluster_state\"}").get("ok").asBoolean()).isTrue();
        }
    }

    @Test
    void malformedFramesCloseOnlyThatConnection() throws Exception {
        try (Raw good = new Raw()) {
            good.hello();
            byte[][] attacks = {
                {0, 0, 0, 0},
                {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff},
                frame("{not json"),
                frame("{\"op\":\"hello\",\"plen\":99999999}"),
                frame("[]"),
                {0, 0, 0, 20, '{', '"'},
            };
            for (byte[] attack : attacks) {
                try (Raw bad = new Raw()) {
                    bad.sendBytes(attack);
                    bad.ch.shutdownOutput();
                    assertThat(bad.read()).isNull();
                }
                assertThat(good.request("{\"op\":\"cluster_state\"}").get("ok").asBoolean()).isTrue();
            }
        }
    }

    /**
     * Requests that may wait leave the daemon's reader loop for a thread of their own
     * (LocalClient); the client's later frames follow them there, so replies keep the order
     * of the requests, and other clients are served meanwhile.
     */
    @Test
    void requestsHandledOffTheReaderLoopKeepTheirPlaceInLine() throws Exception {
        try (Raw c = new Raw(); Raw other = new Raw()) {
            c.hello();
            other.hello();
            java.util.List<String> list = new java.util.ArrayList<>(java.util.List.of(
                    "{\"op\":\"daemon_stats\",\"gc\":true}", "{\"op\":\"get_actor\",\"name\":\"nobody\"}",
                    "{\"op\":\"status\"}", "{\"op\":\"pg_table\"}", "{\"op\":\"cluster_state\"}",
                    "{\"op\":\"get_actor\",\"name\":\"nobody\"}", "{\"op\":\"daemon_stats\",\"gc\":true}"));
            // far more than LocalClient.MAX_BACKLOG, and than one read, behind the last slow one:
            // reading pauses, the socket backs up, and reading resumes once the backlog is drained
            String name = "n".repeat(200);
            for (int i = 0; i < 1500; i++) list.add("{\"op\":\"get_actor\",\"name\":\"" + name + "\"}");
            String[] ops = list.toArray(String[]::new);
            java.io.ByteArrayOutputStream burst = new java.io.ByteArrayOutputStream();
            long first = c.rid + 1;
            for (String op : ops) {
                ObjectNode h = (ObjectNode) FrameCodec.json().readTree(op);
                h.put("rid", ++c.rid);
                burst.writeBytes(FrameCodec.encode(new Frame(h, new byte[0])));
            }
            c.sendBytes(burst.toByteArray()); // all at once, as a pipelining client would
            assertThat(other.request("{\"op\":\"status\"}").get("ok").asBoolean()).isTrue();
            for (int i = 0; i < ops.length; i++) {
                Frame reply = c.read();
                assertThat(reply.header().get("rid").asLong()).as("reply %d", i).isEqualTo(first + i);
                assertThat(reply.header().get("ok").asBoolean()).isEqualTo(!ops[i].contains("get_actor"));
            }
        }
    }

    @Test
    void placementGroupLifecycle() throws Exception {
        try (Raw c = new Raw()) {
            c.hello();
            String pg = Ids.randomHex(18);
            assertThat(c.request("{\"op\":\"pg_create\",\"pg_id\":\"" + pg
                    + "\",\"name\":\"g\",\"strategy\":\"PACK\",\"bundles\":[{\"GPU\":1},{\"GPU\":1,\"custom\":0.5}]}")
                    .get("ok").asBoolean()).isTrue();
            Frame ready = c.read();
            assertThat(ready.op()).isEqualTo("pg_ready");
            ObjectNode table = (ObjectNode) c.request("{\"op\":\"pg_table\",\"pg_id\":\"" + pg + "\"}").get("table");
            assertThat(table.get("state").asText()).isEqualTo("CREATED");
            assertThat(table.get("bundles").get("1").get("custom").asDouble()).isEqualTo(0.5);
            assertThat(table.get("bundles_to_node_id").get("0").asText()).isEqualTo(daemon.nodeId());
            ObjectNode state = c.request("{\"op\":\"cluster_state\"}");
            assertThat(state.get("available").get("GPU").asDouble()).isEqualTo(0.0);
            assertThat(c.request("{\"op\":\"pg_remove\",\"pg_id\":\"" + pg + "\"}").get("ok").asBoolean()).isTrue();
            assertThat(c.request("{\"op\":\"pg_remove\",\"pg_id\":\"" + pg + "\"}").get("ok").asBoolean()).isTrue();
            assertThat(c.request("{\"op\":\"cluster_state\"}").get("available").get("GPU").asDouble()).isEqualTo(2.0);
        }
    }

    @Test
    void oneWayPlacementGroupOpsStillReportRefusals() throws Exception {
        try (Raw c = new Raw()) {
            c.hello();
            String pg = Ids.randomHex(18);
            var json = FrameCodec.json();
            String create = "{\"op\":\"pg_create\",\"pg_id\":\"" + pg + "\",\"strategy\":\"PACK\",\"bundles\":[{\"GPU\":1}]}";
            c.send((ObjectNode) json.readTree(create), new byte[0]);
            Frame ready = c.read();
            assertThat(ready.op()).isEqualTo("pg_ready");
            assertThat(ready.header().get("pg_id").asText()).isEqualTo(pg);
            c.send((ObjectNode) json.readTree("{\"op\":\"pg_remove\",\"pg_id\":\"" + pg + "\"}"), new byte[0]);
            assertThat(c.request("{\"op\":\"cluster_state\"}").get("available").get("GPU").asDouble()).isEqualTo(2.0);
            c.send((ObjectNode) json.readTree(create), new byte[0]);
            Frame refused = c.read();
            assertThat(refused.op()).isEqualTo("pg_failed");
            assertThat(refused.header().get("message").asText()).contains("already in use");
            String unknown = Ids.randomHex(18);
            c.send((ObjectNode) json.readTree("{\"op\":\"pg_remove\",\"pg_id\":\"" + unknown + "\"}"), new byte[0]);
            Frame warning = c.read();
            assertThat(warning.op()).isEqualTo("warning");
            assertThat(warning.header().get("message").asText()).contains(unknown).contains("does not exist");
        }
    }

    @Test
    void sessionDirectoryLooksLikeRays() throws Exception {
        Path latest = temp.resolve("session_latest");
        assertThat(Files.isSymbolicLink(latest)).isTrue();
        assertThat(latest.resolve("sockets")).isDirectory();
        assertThat(Files.getPosixFilePermissions(latest.resolve("sockets"))).hasSize(3);
        assertThat(new String(Files.readAllBytes(latest.resolve("node.json")), StandardCharsets.UTF_8))
                .contains(daemon.nodeId());
        // written with jackson-core's generator, read back with the mapper as `ray stop` does
        var node = SessionDir.findRunning(temp);
        assertThat(node).isNotNull();
        assertThat(node.get("pid").asLong()).isEqualTo(ProcessHandle.current().pid());
        assertThat(node.get("node_id").asText()).isEqualTo(daemon.nodeId());
        assertThat(node.get("node_ip").asText()).isEqualTo(daemon.nodeIp());
        assertThat(node.get("address").asText()).isEqualTo(daemon.gcsAddress());
        assertThat(Path.of(node.get("socket").asText())).exists();
        assertThat(Path.of(node.get("session_dir").asText())).isEqualTo(latest.toRealPath());
    }

    private static byte[] frame(String json) {
        byte[] h = json.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(4 + h.length).putInt(h.length).put(h).array();
    }
}
