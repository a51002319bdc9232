package beam.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import beam.cluster.Forwarded;
import beam.codec.Frame;
import beam.codec.FrameCodec;
import beam.util.ProcessContext;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Each event the domain tells a client becomes the frame docs/PROTOCOL.md names: the wire side
 * of what the domain tests (cluster/) check as typed events.
 */
class FramedClientTest {
    private static final String OID = "ab".repeat(28);
    private static final String PG = "cd".repeat(18);

    /** A client that keeps the frames it would send. */
    private static final class Pushed implements FramedClient {
        final List<Frame> frames = new ArrayList<>();

        @Override
        public void push(Frame frame) {
            frames.add(frame);
        }

        Frame only() {
            assertThat(frames).hasSize(1);
            return frames.getFirst();
        }

        @Override
        public String jobId() {
            return "01000000";
        }

        @Override
        public boolean logToDriver() {
            return true;
        }

        @Override
        public String describe() {
            return "test client";
        }

        @Override
        public String namespace() {
            return "ns";
        }

        @Override
        public ProcessContext processContext() {
            return new ProcessContext(null, null, List.of());
        }
    }

    private static String field(Frame frame, String name) {
        return frame.header().path(name).asText(null);
    }

    @Test
    void aCallWithoutARelayHeaderIsFramedWithItsOidAndMethodAndKeepsItsPayload() {
        Pushed worker = new Pushed();
        byte[] args = {1, 2, 3};
        worker.runCall(OID, "m", new WireFrame(new Frame(FrameCodec.json().createObjectNode().put("method", "m"), args)));
        Frame call = worker.only();
        assertThat(call.op()).isEqualTo("call");
        assertThat(field(call, "oid")).isEqualTo(OID);
        assertThat(field(call, "method")).isEqualTo("m");
        assertThat(call.payload()).containsExactly(args);
    }

    @Test
    void aCallTheDomainMakesItselfHasNoPayload() {
        Pushed worker = new Pushed();
        worker.runCall(OID, "__ray_terminate__", Forwarded.NO_ARGUMENTS);
        Frame call = worker.only();
        assertThat(call.op()).isEqualTo("call");
        assertThat(field(call, "oid")).isEqualTo(OID);
        assertThat(field(call, "method")).isEqualTo("__ray_terminate__");
        assertThat(call.payload()).isEmpty();
    }

    @Test
    void aResultAndAnActorsOutputAreForwardedAsTheyArrived() {
        Pushed driver = new Pushed();
        Frame result = new Frame(FrameCodec.json().createObjectNode().put("op", "result").put("oid", OID).put("status", "ok"));
        Frame log = new Frame(FrameCodec.json().createObjectNode().put("op", "log"));
        driver.callResult(new WireFrame(result));
        driver.actorLog(new WireFrame(log));
        assertThat(driver.frames).containsExactly(result, log);
        assertThatThrownBy(() -> driver.callResult(new Forwarded() { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a frame to forward");
    }

    @Test
    void eachFailedCallIsAResultFrameWithRaysErrorKind() {
        Pushed driver = new Pushed();
        driver.actorDied(OID, "it died");
        driver.actorUnschedulable(OID, "nowhere to run");
        driver.noSuchActor(OID, "no such actor");
        assertThat(driver.frames).extracting(Frame::op).containsOnly("result");
        assertThat(driver.frames).extracting(f -> field(f, "oid")).containsOnly(OID);
        assertThat(driver.frames).extracting(f -> field(f, "status")).containsExactly("actor_died", "error", "error");
        assertThat(driver.frames).extracting(f -> field(f, "kind"))
                .containsExactly("ActorDiedError", "ActorUnschedulableError", "ValueError");
        assertThat(driver.frames).extracting(f -> field(f, "message")).containsExactly("it died", "nowhere to run", "no such actor");
    }

    @Test
    void aWarningAndTheGroupEventsAreTheirOwnOps() {
        Pushed driver = new Pushed();
        driver.warning("cannot be placed yet");
        driver.groupReady(PG);
        driver.groupRemoved(PG);
        driver.groupWaiting(PG, "waits for GPU");
        assertThat(driver.frames).extracting(Frame::op).containsExactly("warning", "pg_ready", "pg_removed", "pg_waiting");
        assertThat(field(driver.frames.get(0), "message")).isEqualTo("cannot be placed yet");
        assertThat(driver.frames.subList(1, 4)).extracting(f -> field(f, "pg_id")).containsOnly(PG);
        assertThat(field(driver.frames.get(1), "message")).isNull();
        assertThat(field(driver.frames.get(3), "message")).isEqualTo("waits for GPU");
    }
}
