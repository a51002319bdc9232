package beam.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The plain call/result fast path: which headers take it, and that they go out byte for byte. */
class RelayHeaderTest {
    private static final String ACTOR = "ab".repeat(16);
    private static final String OID = "cd".repeat(28);
    private final FrameCodec codec = new FrameCodec(new FrameLimits(1024, 4096));

    private static byte[] wire(String json, byte[] payload) {
        byte[] h = json.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(4 + h.length + payload.length).putInt(h.length).put(h).put(payload).array();
    }

    private static RelayHeader scan(String json) {
        byte[] b = ("xx" + json).getBytes(StandardCharsets.UTF_8); // at an offset, as in a frame
        return RelayHeader.scan(b, 2, b.length - 2);
    }

    @Test
    void readsPlainCallsAndResultsInAnyFieldOrder() {
        RelayHeader call = scan("{\"oid\":\"" + OID + "\",\"op\":\"call\",\"method\":\"m\",\"actor_id\":\"" + ACTOR + "\",\"plen\":7}");
        assertThat(call).isEqualTo(new RelayHeader("call", ACTOR, OID, "m", null, null, 7));
        assertThat(call.isCall()).isTrue();
        RelayHeader result = scan("{\"op\":\"result\",\"oid\":\"" + OID + "\",\"status\":\"ok\"}");
        assertThat(result).isEqualTo(new RelayHeader("result", null, OID, null, null, "ok", 0));
        RelayHeader labelled = scan("{\"op\":\"call\",\"actor_id\":\"" + ACTOR + "\",\"method\":\"execute_method\",\"oid\":\""
                + OID + "\",\"label\":\"init_device\",\"plen\":9}");
        assertThat(labelled).isEqualTo(new RelayHeader("call", ACTOR, OID, "execute_method", "init_device", null, 9));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"op\":\"call\",\"actor_id\":\"ACTOR\",\"oid\":\"OID\",\"method\":\"m\",\"extra\":1}", // unknown field
        "{\"op\":\"call\",\"actor_id\":\"ACTOR\",\"oid\":\"OID\"}", // no method
        "{\"op\":\"call\",\"actor_id\":\"ACTOR\",\"oid\":\"OID\",\"method\":5}", // method not a string
        "{\"op\":\"call\",\"actor_id\":\"zz\",\"oid\":\"OID\",\"method\":\"m\"}", // actor id not 32 hex
        "{\"op\":\"call\",\"actor_id\":\"ACTOR\",\"oid\":\"OID\",\"method\":\"m\",\"method\":\"n\"}", // repeated
        "{\"op\":\"call\",\"actor_id\":\"ACTOR\",\"oid\":\"OID\",\"method\":{\"a\":1}}", // nested
        "{\"op\":\"result\",\"oid\":\"OID\",\"status\":\"ok\",\"plen\":-1}", // negative length
        "{\"op\":\"result\",\"oid\":\"OID\",\"status\":\"ok\",\"plen\":1.5}", // not an integer
        "{\"op\":\"result\",\"oid\":\"OID\",\"status\":\"ok\",\"kind\":\"X\"}", // a field the daemon filters
        "{\"op\":\"result\",\"oid\":\"OID\",\"status\":\"ok\",\"actor_id\":\"ACTOR\"}", // a call's field
        "{\"op\":\"kill\",\"actor_id\":\"ACTOR\"}", // another op
        "{\"op\":\"result\",\"oid\":\"OID\",\"status\":\"ok\"} {}", // trailing content
        "{\"op\":\"result\",\"oid\":\"OID\",\"status\":\"ok\"", // cut short
        "[\"op\"]",
        "{\"op\":\"call\",\"actor_id\":\"ACTOR\",\"oid\":\"OID\",\"method\":\"m\",\"label\":\"LONG\"}", // label over 64
        "{\"op\":\"call\",\"actor_id\":\"ACTOR\",\"oid\":\"OID\",\"method\":\"m\",\"label\":\"\"}", // empty label
        "{\"op\":\"call\",\"actor_id\":\"ACTOR\",\"oid\":\"OID\",\"method\":\"m\",\"label\":7}", // label not a string
        "{\"op\":\"result\",\"oid\":\"OID\",\"status\":\"ok\",\"label\":\"x\"}", // a call's field
    })
    void anythingElseTakesTheGeneralPath(String json) {
        assertThat(scan(json.replace("ACTOR", ACTOR).replace("OID", OID).replace("LONG", "x".repeat(65)))).isNull();
    }

    @Test
    void aPlainFrameIsForwardedByteForByte() throws Exception {
        byte[] in = wire("{\"op\":\"call\", \"actor_id\":\"" + ACTOR + "\", \"oid\":\"" + OID + "\", \"method\":\"m\", \"plen\":3}",
                new byte[] {7, 8, 9});
        Frame frame = codec.decode(new ByteArrayInputStream(in));
        assertThat(frame.relay()).isNotNull();
        assertThat(frame.op()).isEqualTo("call");
        assertThat(FrameCodec.encode(frame)).isEqualTo(in); // spaces and field order kept: nothing re-serialized
    }

    @Test
    void aPlainFrameWhoseTreeWasChangedIsWrittenFromTheTree() throws Exception {
        byte[] in = wire("{\"op\":\"result\",\"oid\":\"" + OID + "\",\"status\":\"ok\",\"plen\":1}", new byte[] {5});
        Frame frame = codec.decode(new ByteArrayInputStream(in));
        frame.header().put("cid", 4);
        Frame back = codec.decode(new ByteArrayInputStream(FrameCodec.encode(frame)));
        assertThat(back.relay()).isNull(); // cid is not a plain result's field
        assertThat(back.header().get("cid").asInt()).isEqualTo(4);
        assertThat(back.header().get("oid").asText()).isEqualTo(OID);
        assertThat(back.payload()).containsExactly(5);
    }

    @Test
    void anExtraFieldKeepsTheFrameOnTheTreePath() throws Exception {
        byte[] in = wire("{\"op\":\"result\",\"oid\":\"" + OID + "\",\"status\":\"ok\",\"note\":\"x\"}", new byte[0]);
        Frame frame = codec.decode(new ByteArrayInputStream(in));
        assertThat(frame.relay()).isNull();
        assertThat(frame.header().get("note").asText()).isEqualTo("x");
    }

    @Test
    void thePayloadLimitHoldsOnTheFastPath() {
        byte[] in = wire("{\"op\":\"result\",\"oid\":\"" + OID + "\",\"status\":\"ok\",\"plen\":5000}", new byte[0]);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> codec.decode(new ByteArrayInputStream(in)))
                .isInstanceOf(FrameException.class).hasMessageContaining("max_payload_bytes");
    }

    /**
     * Random headers near the plain shape (whitespace, field order, escapes, non-ASCII, odd
     * numbers, extra fields): whenever the scan accepts one, Jackson reads the same fields
     * and values from it, and every header built from plain parts is accepted.
     */
    @Test
    void agreesWithJacksonOnRandomHeaders() throws Exception {
        java.util.Random rnd = new java.util.Random(7);
        String[] spaces = {"", " ", "\n", "\t ", "\r\n"};
        String[] methods = {"m", "execute_model", "caf\\u00e9", "caf\u00e9", "a\\\"b", "x y", ""};
        String[] plens = {"0", "12", "007", "-3", "1e2", "2.0", "2147483647", "2147483648", "true"};
        int accepted = 0;
        for (int n = 0; n < 20_000; n++) {
            boolean call = rnd.nextBoolean();
            java.util.List<String> fields = new java.util.ArrayList<>();
            fields.add("\"op\":\"" + (call ? "call" : rnd.nextInt(20) == 0 ? "kill" : "result") + "\"");
            fields.add("\"oid\":\"" + (rnd.nextInt(30) == 0 ? "12" : OID) + "\"");
            boolean plain = true;
            if (call) {
                fields.add("\"actor_id\":\"" + ACTOR + "\"");
                String m = methods[rnd.nextInt(methods.length)];
                plain &= !m.contains("\\") && m.chars().allMatch(c -> c < 0x80);
                fields.add("\"method\":\"" + m + "\"");
            } else {
                fields.add("\"status\":\"" + (rnd.nextBoolean() ? "ok" : "task_error") + "\"");
            }
            if (rnd.nextBoolean()) {
                String p = plens[rnd.nextInt(plens.length)];
                plain &= p.matches("0|[1-9][0-9]*") && Long.parseLong(p) <= Integer.MAX_VALUE;
                fields.add("\"plen\":" + p);
            }
            if (rnd.nextInt(10) == 0) {
                fields.add("\"cid\":3");
                plain = false;
            }
            java.util.Collections.shuffle(fields, rnd);
            StringBuilder json = new StringBuilder("{");
            for (int i = 0; i < fields.size(); i++) {
                if (i > 0) json.append(spaces[rnd.nextInt(spaces.length)]).append(',');
                json.append(spaces[rnd.nextInt(spaces.length)]).append(fields.get(i).replace(":", spaces[rnd.nextInt(spaces.length)] + ":"));
            }
            json.append(spaces[rnd.nextInt(spaces.length)]).append('}');
            String text = json.toString();
            plain &= text.contains("\"op\":\"call\"") || text.contains("\"op\":\"result\"");
            plain &= text.contains(OID);
            RelayHeader got = scan(text);
            if (plain) assertThat(got).as(text).isNotNull();
            if (got == null) continue;
            accepted++;
            com.fasterxml.jackson.databind.JsonNode tree = FrameCodec.json().readTree(text);
            assertThat(tree.get("op").asText()).as(text).isEqualTo(got.op());
            assertThat(tree.get("oid").asText()).as(text).isEqualTo(got.oid());
            assertThat(tree.path("method").asText(null)).as(text).isEqualTo(got.method());
            assertThat(tree.path("status").asText(null)).as(text).isEqualTo(got.status());
            assertThat(tree.path("actor_id").asText(null)).as(text).isEqualTo(got.actorId());
            assertThat(tree.path("plen").asLong(0)).as(text).isEqualTo(got.plen());
            int expectedFields = (got.isCall() ? 4 : 3) + (tree.has("plen") ? 1 : 0); // nothing else in it
            assertThat(tree.size()).as(text).isEqualTo(expectedFields);
        }
        assertThat(accepted).isGreaterThan(5_000);
    }

    @Test
    void aTaggedPlainFrameCrossesANodeLinkOnTheFastPathAndComesOutAsItWent() throws Exception {
        byte[] in = wire("{\"op\":\"call\",\"actor_id\":\"" + ACTOR + "\",\"oid\":\"" + OID + "\",\"method\":\"m\",\"plen\":2}",
                new byte[] {1, 2});
        Frame frame = codec.decode(new ByteArrayInputStream(in));
        byte[] onLink = FrameCodec.encode(frame.taggedWith(42));
        String linkHeader = new String(onLink, 4, ByteBuffer.wrap(onLink).getInt(), StandardCharsets.UTF_8);
        assertThat(linkHeader).startsWith("{\"cid\":42,\"op\":\"call\"");
        assertThat(FrameCodec.json().readTree(linkHeader).get("cid").asLong()).isEqualTo(42); // plain JSON on the wire
        Frame arrived = codec.decode(new ByteArrayInputStream(onLink));
        assertThat(arrived.linkCid()).isEqualTo(42);
        assertThat(arrived.relay()).isEqualTo(frame.relay());
        assertThat(FrameCodec.encode(arrived)).isEqualTo(in); // the tag is gone, the rest byte for byte
        assertThat(arrived.header().has("cid")).isFalse();
        assertThat(frame.linkCid()).isEqualTo(-1);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"cid\": 7,\"op\":\"result\",\"oid\":\"OID\",\"status\":\"ok\"}", // a space: not the writer's form
        "{\"cid\":07,\"op\":\"result\",\"oid\":\"OID\",\"status\":\"ok\"}", // leading zero (not JSON either)
        "{\"cid\":7,\"op\":\"result\",\"oid\":\"OID\",\"status\":\"ok\",\"kind\":\"X\"}", // rest not plain
        "{\"op\":\"result\",\"oid\":\"OID\",\"status\":\"ok\",\"cid\":7}", // cid last
        "{\"cid\":\"7\",\"op\":\"result\",\"oid\":\"OID\",\"status\":\"ok\"}", // a string
    })
    void anyOtherTaggedHeaderTakesTheTreePathWithItsCid(String json) throws Exception {
        String text = json.replace("OID", OID);
        if (text.contains(":07,")) {
            assertThat(RelayHeader.leadingCid(text.getBytes(StandardCharsets.UTF_8), 0, text.length())).isEqualTo(-1);
            return; // Jackson rejects the leading zero too: the frame would be refused as bad JSON
        }
        Frame frame = codec.decode(new ByteArrayInputStream(wire(text, new byte[0])));
        assertThat(frame.linkCid()).isEqualTo(-1);
        assertThat(frame.relay()).isNull();
        assertThat(frame.header().get("cid").asText()).isEqualTo("7");
    }

    @Test
    void aFrameWithoutHeaderBytesIsTaggedInACopyOfItsTree() {
        com.fasterxml.jackson.databind.node.ObjectNode h = FrameCodec.json().createObjectNode().put("op", "reply").put("rid", 3);
        Frame frame = new Frame(h, new byte[] {9});
        Frame tagged = frame.taggedWith(5);
        assertThat(tagged.header().get("cid").asLong()).isEqualTo(5);
        assertThat(tagged.payload()).containsExactly(9);
        assertThat(frame.header().has("cid")).isFalse(); // the original is untouched
    }

    /** Random plain headers and client ids: tagging then reading back gives the same frame. */
    @Test
    void taggingRoundTripsOnRandomPlainFrames() throws Exception {
        java.util.Random rnd = new java.util.Random(11);
        String[] spaces = {"", " ", "\n"};
        for (int n = 0; n < 5_000; n++) {
            String sp = spaces[rnd.nextInt(spaces.length)];
            String json = rnd.nextBoolean()
                    ? "{" + sp + "\"op\":\"call\"," + sp + "\"actor_id\":\"" + ACTOR + "\",\"oid\":\"" + OID + "\",\"method\":\"m" + n + "\"}"
                    : "{\"oid\":\"" + OID + "\"," + sp + "\"op\":\"result\",\"status\":\"ok\"" + sp + "}";
            long cid = rnd.nextInt(4) == 0 ? rnd.nextLong(0, 999_999_999_999_999_999L) : rnd.nextInt(1000);
            byte[] in = wire(json, new byte[0]);
            Frame frame = codec.decode(new ByteArrayInputStream(in));
            Frame back = codec.decode(new ByteArrayInputStream(FrameCodec.encode(frame.taggedWith(cid))));
            assertThat(back.linkCid()).as(json).isEqualTo(cid);
            assertThat(back.relay()).as(json).isEqualTo(frame.relay());
            assertThat(FrameCodec.encode(back)).as(json).isEqualTo(in);
        }
    }
}
