package beam.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class FrameCodecTest {
    private final FrameCodec codec = new FrameCodec(new FrameLimits(1024, 4096));

    private static byte[] raw(String json, byte[] payload) {
        byte[] h = json.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(4 + h.length + payload.length).putInt(h.length).put(h).put(payload).array();
    }

    private Frame decode(byte[] bytes) throws Exception {
        return codec.decode(new ByteArrayInputStream(bytes));
    }

    @Test
    void theWarmUpAfterReadyHandlesItsFixedHeader() {
        FrameCodec.warmUp(); // throws if the header it parses stopped being a valid frame header
        assertThat(FrameCodec.json()).isSameAs(FrameCodec.json());
    }

    @Test
    void encodesByteExact() {
        ObjectNode h = FrameCodec.json().createObjectNode().put("op", "call");
        byte[] bytes = FrameCodec.encode(new Frame(h, new byte[] {1, 2, 3}));
        assertThat(bytes).isEqualTo(raw("{\"op\":\"call\",\"plen\":3}", new byte[] {1, 2, 3}));
    }

    @Test
    void roundTripsAndDropsPlenForEmptyPayload() throws Exception {
        ObjectNode h = FrameCodec.json().createObjectNode().put("op", "x").put("plen", 99);
        byte[] bytes = FrameCodec.encode(new Frame(h));
        assertThat(bytes).isEqualTo(raw("{\"op\":\"x\"}", new byte[0]));
        Frame back = decode(bytes);
        assertThat(back.op()).isEqualTo("x");
        assertThat(back.payload()).isEmpty();
    }

    @Test
    void matchesTheGoldenFramesSharedWithPython() throws Exception {
        Path golden = Path.of("..", "tests", "golden", "frames.json");
        JsonNode cases = FrameCodec.json().readTree(Files.readAllBytes(golden));
        assertThat(cases.size()).isGreaterThanOrEqualTo(3);
        HexFormat hex = HexFormat.of();
        for (JsonNode c : cases) {
            byte[] expected = hex.parseHex(c.get("frame_hex").asText());
            byte[] payload = hex.parseHex(c.get("payload_hex").asText());
            byte[] encoded = FrameCodec.encode(new Frame(((ObjectNode) c.get("header")).deepCopy(), payload));
            assertThat(encoded).as(c.get("name").asText()).isEqualTo(expected);
            Frame decoded = new FrameCodec(FrameLimits.DEFAULT).decode(new ByteArrayInputStream(expected));
            assertThat(decoded.payload()).isEqualTo(payload);
            assertThat(decoded.op()).isEqualTo(c.get("header").get("op").asText());
        }
    }

    @Test
    void cleanEndOfStreamIsNull() throws Exception {
        assertThat(decode(new byte[0])).isNull();
    }

    @Test
    void rejectsZeroLength() {
        assertThatThrownBy(() -> decode(new byte[] {0, 0, 0, 0})).isInstanceOf(FrameException.class).hasMessageContaining("0");
    }

    @Test
    void rejectsOversizeHeaderBeforeReadingIt() {
        // Announces 2 GiB but sends nothing more: must fail on the number alone.
        assertThatThrownBy(() -> decode(new byte[] {(byte) 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff}))
                .isInstanceOf(FrameException.class).hasMessageContaining("max_header_bytes");
    }

    @Test
    void rejectsOversizePayloadBeforeAllocating() {
        assertThatThrownBy(() -> decode(raw("{\"op\":\"a\",\"plen\":4097}", new byte[0])))
                .isInstanceOf(FrameException.class).hasMessageContaining("max_payload_bytes");
    }

    @Test
    void rejectsBadHeaders() {
        assertThatThrownBy(() -> decode(raw("{nope", new byte[0]))).hasMessageContaining("not valid JSON");
        assertThatThrownBy(() -> decode(raw("[1,2]", new byte[0]))).hasMessageContaining("not a JSON object");
        assertThatThrownBy(() -> decode(raw("{\"x\":1}", new byte[0]))).hasMessageContaining("\"op\"");
        assertThatThrownBy(() -> decode(raw("{\"op\":5}", new byte[0]))).hasMessageContaining("\"op\"");
        assertThatThrownBy(() -> decode(raw("{\"op\":\"a\",\"plen\":-1}", new byte[0]))).hasMessageContaining("plen");
        assertThatThrownBy(() -> decode(raw("{\"op\":\"a\",\"plen\":1.5}", new byte[0]))).hasMessageContaining("plen");
        assertThatThrownBy(() -> decode(raw("{\"op\":\"a\",\"plen\":\"3\"}", new byte[0]))).hasMessageContaining("plen");
    }

    @Test
    void rejectsTruncatedFrames() {
        byte[] full = raw("{\"op\":\"a\",\"plen\":5}", new byte[] {1, 2, 3, 4, 5});
        for (int cut : new int[] {2, 6, full.length - 1}) {
            byte[] part = java.util.Arrays.copyOf(full, cut);
            assertThatThrownBy(() -> decode(part)).as("cut at " + cut).isInstanceOf(FrameException.class)
                    .hasMessageContaining("middle");
        }
    }

    @Test
    void copesWithAStreamThatReturnsFewBytesPerRead() throws Exception {
        byte[] bytes = raw("{\"op\":\"a\",\"plen\":5}", new byte[] {9, 8, 7, 6, 5});
        InputStream trickle = new InputStream() {
            int i;

            @Override
            public int read() {
                return i < bytes.length ? bytes[i++] & 0xff : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (i >= bytes.length) return -1;
                b[off] = bytes[i++];
                return 1;
            }
        };
        Frame f = codec.decode(trickle);
        assertThat(f.payload()).containsExactly(9, 8, 7, 6, 5);
    }

    @Test
    void readsConsecutiveFrames() throws IOException, FrameException {
        byte[] a = raw("{\"op\":\"a\"}", new byte[0]);
        byte[] b = raw("{\"op\":\"b\",\"plen\":1}", new byte[] {42});
        ByteArrayInputStream in = new ByteArrayInputStream(ByteBuffer.allocate(a.length + b.length).put(a).put(b).array());
        assertThat(codec.decode(in).op()).isEqualTo("a");
        assertThat(codec.decode(in).payload()).containsExactly(42);
        assertThat(codec.decode(in)).isNull();
    }
}
