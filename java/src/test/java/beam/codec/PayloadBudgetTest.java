package beam.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.SequenceInputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Payload memory is taken as bytes arrive, from one budget shared by a daemon's codecs,
 * never from the length a header announces (issue 26).
 */
class PayloadBudgetTest {
    private static final FrameLimits BIG = new FrameLimits(1 << 20, 1L << 30);

    /** The prefix and header of a frame that announces {@code plen} payload bytes. */
    private static byte[] headerAnnouncing(long plen) {
        byte[] json = ("{\"op\":\"put\",\"rid\":1,\"plen\":" + plen + "}").getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(4 + json.length).putInt(json.length).put(json).array();
    }

    @Test
    void announcingAGigabyteTakesOnlyWhatArrived() throws Exception {
        PayloadBudget budget = new PayloadBudget(1L << 30);
        List<FrameAssembler> peers = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            FrameAssembler a = new FrameAssembler(new FrameCodec(BIG, budget));
            a.feed(ByteBuffer.wrap(headerAnnouncing(1L << 30)), f -> true);
            a.feed(ByteBuffer.wrap(new byte[10]), f -> true);
            peers.add(a);
        }
        // a thousand gigabytes announced, the first 64 KiB step of each taken: 64 MiB, not 1 TB
        assertThat(budget.taken()).isEqualTo(1000L * PayloadBuffer.FIRST_BYTES);
        peers.forEach(FrameAssembler::release);
        assertThat(budget.taken()).isZero();
    }

    @Test
    void aWholePayloadArrivesIntactAndGivesItsBudgetBack() throws Exception {
        PayloadBudget budget = new PayloadBudget(8L << 20);
        byte[] payload = new byte[3 << 20];
        for (int i = 0; i < payload.length; i++) payload[i] = (byte) (i * 31);
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        wire.write(headerAnnouncing(payload.length));
        wire.write(payload);
        byte[] bytes = wire.toByteArray();
        List<Frame> got = new ArrayList<>();
        FrameAssembler a = new FrameAssembler(new FrameCodec(BIG, budget));
        for (int at = 0; at < bytes.length; at += 7000) {
            a.feed(ByteBuffer.wrap(bytes, at, Math.min(7000, bytes.length - at)), got::add);
            if (got.isEmpty()) assertThat(budget.taken()).isLessThanOrEqualTo(2L * Math.max(at + 7000, PayloadBuffer.FIRST_BYTES));
        }
        assertThat(got).hasSize(1);
        assertThat(Arrays.equals(got.get(0).payload(), payload)).isTrue();
        assertThat(budget.taken()).isZero();
        Frame decoded = new FrameCodec(BIG, budget).decode(new ByteArrayInputStream(bytes));
        assertThat(Arrays.equals(decoded.payload(), payload)).isTrue();
        assertThat(budget.taken()).isZero();
    }

    @Test
    void overTheBudgetTheFrameIsRefusedNamingItAndTheBudgetIsNotLeaked() throws Exception {
        PayloadBudget budget = new PayloadBudget(1 << 20);
        byte[] header = headerAnnouncing(4 << 20);
        FrameAssembler a = new FrameAssembler(new FrameCodec(BIG, budget));
        assertThatThrownBy(() -> a.feed(ByteBuffer.wrap(concat(header, new byte[2 << 20])), f -> true))
                .isInstanceOf(FrameException.class).hasMessageContaining("payload budget").hasMessageContaining("1 MiB");
        a.release();
        assertThat(budget.taken()).isZero();
        // the blocking decoder: a stream cut in the middle gives its budget back too
        var in = new SequenceInputStream(new ByteArrayInputStream(header), new ByteArrayInputStream(new byte[100_000]));
        assertThatThrownBy(() -> new FrameCodec(BIG, budget).decode(in)).isInstanceOf(FrameException.class);
        assertThat(budget.taken()).isZero();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
