package beam.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import beam.codec.Frame;
import beam.dispatch.WireFrame;
import beam.protocol.Frames;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The dashboard's memory of actors: output tails and recent deaths, both bounded. */
class ActorHistoryTest {
    private final ActorHistory history = new ActorHistory();

    /** A log frame as the dispatch layer hands it to the domain (its stream read from the header). */
    private static ActorOutput log(String stream, String text) {
        ObjectNode h = Frames.header("log");
        h.put("stream", stream);
        return WireFrame.output(new Frame(h, text.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void theTailHoldsTheLastLinesOfBothStreamsInOrder() {
        history.log("a", log("stdout", "one\ntwo\n"));
        history.log("a", log("stderr", "oops\nagain\n"));
        history.log("a", log("stdout", "three\n"));
        assertThat(history.tail("a", 2)).isEqualTo("[err] again\nthree\n");
        assertThat(history.tail("a", 100)).isEqualTo("one\ntwo\n[err] oops\n[err] again\nthree\n");
        assertThat(history.tail("nobody", 5)).isNull();
    }

    @Test
    void aTailKeepsItsLastBytesAndTheLeastRecentActorsAreForgotten() {
        for (int i = 0; i < 1_000; i++) history.log("a", log("stdout", "line " + i + " " + "x".repeat(100) + "\n"));
        String tail = history.tail("a", 1_000);
        assertThat(tail.length()).isLessThanOrEqualTo(ActorHistory.TAIL_BYTES + 200);
        assertThat(tail).endsWith("line 999 " + "x".repeat(100) + "\n").doesNotContain("line 0 ");
        for (int i = 0; i < ActorHistory.MAX_TAILS; i++) history.log("b" + i, log("stdout", "hi\n"));
        assertThat(history.tail("a", 1)).isNull();
        assertThat(history.tail("b" + (ActorHistory.MAX_TAILS - 1), 1)).isEqualTo("hi\n");
    }
}
