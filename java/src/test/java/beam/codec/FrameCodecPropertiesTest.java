package beam.codec;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;

/**
 * Properties of the codec: every frame round-trips byte-exact, and no byte sequence can
 * make the decoder do anything but return frames, return null at a clean end, or throw
 * {@link FrameException}: never another exception, never a huge allocation.
 */
class FrameCodecPropertiesTest {
    private static final FrameLimits SMALL = new FrameLimits(4096, 65536);

    @Property(tries = 500)
    void framesRoundTrip(@ForAll @StringLength(max = 40) String op, @ForAll @StringLength(max = 200) String text,
                         @ForAll long number, @ForAll @Size(max = 3000) byte[] payload) throws Exception {
        ObjectNode h = FrameCodec.json().createObjectNode().put("op", op).put("text", text).put("n", number);
        byte[] bytes = FrameCodec.encode(new Frame(h.deepCopy(), payload));
        Frame back = new FrameCodec(SMALL).decode(new ByteArrayInputStream(bytes));
        assertThat(back.payload()).isEqualTo(payload);
        assertThat(back.header().get("op").asText()).isEqualTo(op);
        assertThat(back.header().get("text").asText()).isEqualTo(text);
        assertThat(back.header().get("n").asLong()).isEqualTo(number);
        assertThat(FrameCodec.encode(back)).isEqualTo(bytes);
    }

    @Property(tries = 3000)
    void arbitraryBytesNeverBreakTheDecoder(@ForAll @Size(max = 600) byte[] junk) throws IOException {
        decodeAll(junk);
    }

    @Property(tries = 3000)
    void mutatedFramesNeverBreakTheDecoder(@ForAll @Size(max = 200) byte[] payload, @ForAll @IntRange(max = 10_000) int where,
                                           @ForAll byte value, @ForAll @IntRange(max = 3) int mode) throws IOException {
        ObjectNode h = FrameCodec.json().createObjectNode().put("op", "call").put("oid", "0".repeat(56));
        byte[] good = FrameCodec.encode(new Frame(h, payload));
        int at = where % good.length;
        byte[] bad = switch (mode) {
            case 0 -> flip(good, at, value);
            case 1 -> Arrays.copyOf(good, at);
            case 2 -> ByteBuffer.allocate(good.length + 4).put(good).putInt(at * 7919).array();
            default -> ByteBuffer.allocate(good.length).put(good).putInt(0, (value & 0xff) << 24 | at).array();
        };
        decodeAll(bad);
    }

    private static byte[] flip(byte[] b, int at, byte value) {
        byte[] c = b.clone();
        c[at] ^= (byte) (value == 0 ? 1 : value);
        return c;
    }

    /** Decodes until end or FrameException; anything else fails the property. */
    private static void decodeAll(byte[] bytes) throws IOException {
        FrameCodec codec = new FrameCodec(SMALL);
        ByteArrayInputStream in = new ByteArrayInputStream(bytes);
        try {
            for (int i = 0; i < 1000; i++) {
                Frame f = codec.decode(in);
                if (f == null) return;
                assertThat(f.header().get("op").isTextual()).isTrue();
                assertThat((long) f.payload().length).isLessThanOrEqualTo(SMALL.maxPayloadBytes());
            }
        } catch (FrameException expected) {
            // the connection would be closed: fine
        }
    }
}
