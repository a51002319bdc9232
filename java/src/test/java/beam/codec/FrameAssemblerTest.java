package beam.codec;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * The incremental decoder against the stream decoder: fed the same bytes in any chunks, it
 * yields the same frames, byte for byte, and ends with the same error, or none.
 */
class FrameAssemblerTest {
    private static final FrameLimits SMALL = new FrameLimits(4096, 65536);

    /** The frames (re-encoded) and then "end" or the error's message, as FrameCodec.decode reads them. */
    private static List<String> byDecode(byte[] bytes) throws Exception {
        List<String> out = new ArrayList<>();
        FrameCodec codec = new FrameCodec(SMALL);
        ByteArrayInputStream in = new ByteArrayInputStream(bytes);
        try {
            for (Frame f; (f = codec.decode(in)) != null; ) out.add(describe(f));
            out.add("end");
        } catch (FrameException e) {
            out.add("error: " + e.getMessage());
        }
        return out;
    }

    /** The same, from a FrameAssembler fed chunks of the sizes {@code seed} picks (1 to 64 bytes). */
    private static List<String> byAssembler(byte[] bytes, long seed) {
        List<String> out = new ArrayList<>();
        FrameAssembler assembler = new FrameAssembler(new FrameCodec(SMALL));
        Random random = new Random(seed);
        try {
            for (int at = 0; at < bytes.length; ) {
                int n = Math.min(bytes.length - at, 1 + random.nextInt(64));
                assembler.feed(ByteBuffer.wrap(bytes, at, n), f -> out.add(describe(f)));
                at += n;
            }
            FrameException cut = assembler.endOfStream();
            out.add(cut == null ? "end" : "error: " + cut.getMessage());
        } catch (FrameException e) {
            out.add("error: " + e.getMessage());
        }
        return out;
    }

    private static String describe(Frame f) {
        return f.op() + " " + java.util.HexFormat.of().formatHex(FrameCodec.encode(f)) + " cid " + f.linkCid();
    }

    private static byte[] frames(int count, int payloadBytes, Random random) throws Exception {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (int i = 0; i < count; i++) {
            byte[] payload = new byte[random.nextInt(payloadBytes + 1)];
            random.nextBytes(payload);
            ObjectNode h = switch (i % 3) { // a relayable call, a relayable result tagged with a cid, a plain request
                case 0 -> FrameCodec.json().createObjectNode().put("op", "call").put("actor_id", "a".repeat(32))
                        .put("oid", Integer.toHexString(i).repeat(56).substring(0, 56)).put("method", "m");
                case 1 -> FrameCodec.json().createObjectNode().put("cid", 7).put("op", "result")
                        .put("oid", "b".repeat(56)).put("status", "ok");
                default -> FrameCodec.json().createObjectNode().put("op", "status").put("rid", i);
            };
            all.write(FrameCodec.encode(new Frame(h, payload)));
        }
        return all.toByteArray();
    }

    @Property(tries = 300)
    void validStreamsGiveTheSameFramesInAnyChunks(@ForAll @IntRange(min = 1, max = 12) int count,
                                                  @ForAll @IntRange(max = 300) int payloadBytes, @ForAll long seed)
            throws Exception {
        byte[] bytes = frames(count, payloadBytes, new Random(seed));
        List<String> expected = byDecode(bytes);
        assertThat(expected).hasSize(count + 1).last().isEqualTo("end");
        assertThat(byAssembler(bytes, seed)).isEqualTo(expected);
    }

    @Property(tries = 2000)
    void brokenStreamsEndWithTheSameError(@ForAll @IntRange(min = 1, max = 4) int count, @ForAll long seed,
                                          @ForAll @IntRange(max = 10_000) int where, @ForAll byte value,
                                          @ForAll @IntRange(max = 2) int mode) throws Exception {
        byte[] good = frames(count, 100, new Random(seed));
        int at = where % good.length;
        byte[] bad = switch (mode) {
            case 0 -> flip(good, at, value);
            case 1 -> java.util.Arrays.copyOf(good, at); // cut short
            default -> ByteBuffer.allocate(good.length + 4).put(good).putInt(at * 7919).array(); // a huge length
        };
        assertThat(byAssembler(bad, seed)).isEqualTo(byDecode(bad));
    }

    @Property(tries = 1000)
    void arbitraryBytesEndTheSameWay(@ForAll @Size(max = 400) byte[] junk, @ForAll long seed) throws Exception {
        assertThat(byAssembler(junk, seed)).isEqualTo(byDecode(junk));
    }

    @Test
    void aSinkThatSaysStopGetsNoFurtherFrame() throws Exception {
        byte[] bytes = frames(3, 10, new Random(1));
        List<String> seen = new ArrayList<>();
        boolean more = new FrameAssembler(new FrameCodec(SMALL)).feed(ByteBuffer.wrap(bytes), f -> {
            seen.add(f.op());
            return false;
        });
        assertThat(more).isFalse();
        assertThat(seen).containsExactly("call");
    }

    @Test
    void noBufferIsAllocatedForALengthOverTheLimit() {
        FrameAssembler assembler = new FrameAssembler(new FrameCodec(SMALL));
        byte[] prefix = ByteBuffer.allocate(4).putInt(Integer.MAX_VALUE).array();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> assembler.feed(ByteBuffer.wrap(prefix), f -> true))
                .isInstanceOf(FrameException.class).hasMessageContaining("exceeds the limit of 4096 bytes");
    }

    private static byte[] flip(byte[] b, int at, byte value) {
        byte[] c = b.clone();
        c[at] ^= (byte) (value == 0 ? 1 : value);
        return c;
    }
}
