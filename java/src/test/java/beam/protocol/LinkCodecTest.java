package beam.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import beam.codec.Frame;
import beam.codec.FrameCodec;
import beam.codec.FrameLimits;
import beam.protocol.Request.BadRequest;
import beam.util.NodeQuestion;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The node link's golden frames (tests/golden/link_frames.json): each reads into its record and writes back to the same bytes. */
class LinkCodecTest {
    private static final HexFormat HEX = HexFormat.of();

    private static JsonNode cases() throws Exception {
        return FrameCodec.json().readTree(Files.readAllBytes(Path.of("..", "tests", "golden", "link_frames.json")));
    }

    private static Frame decode(byte[] wire) throws Exception {
        return new FrameCodec(FrameLimits.DEFAULT).decode(new ByteArrayInputStream(wire));
    }

    private static LinkMessage read(String reader, Frame frame) throws BadRequest {
        return switch (reader) {
            case "toHead" -> LinkCodec.toHead(frame);
            case "toNode" -> LinkCodec.toNode(frame);
            case "challenge" -> LinkCodec.challenge(frame);
            case "join" -> LinkCodec.join(frame);
            case "joinAnswer" -> LinkCodec.joinAnswer(frame);
            default -> throw new AssertionError("unknown reader " + reader);
        };
    }

    @Test
    void everyGoldenFrameReadsIntoItsRecordAndWritesBackToTheSameBytes() throws Exception {
        for (JsonNode c : cases()) {
            String name = c.get("name").asText();
            byte[] wire = HEX.parseHex(c.get("frame_hex").asText());
            LinkMessage message = read(c.get("reader").asText(), decode(wire));
            assertThat(message.getClass().getSimpleName()).as(name).isEqualTo(c.get("message").asText());
            if (c.has("carries")) assertThat(carried(message).getClass().getSimpleName()).as(name).isEqualTo(c.get("carries").asText());
            assertThat(FrameCodec.encode(LinkCodec.encode(message))).as(name).isEqualTo(wire);
        }
    }

    /** The node question or answer a message carries. */
    private static Object carried(LinkMessage message) {
        return switch (message) {
            case LinkMessage.Ask a -> a.question();
            case LinkMessage.AskAnswer a -> a.answer();
            default -> throw new AssertionError(message + " carries no node question or answer");
        };
    }

    /** The records of a sealed type: its permitted subclasses, and theirs when they are sealed too. */
    private static List<String> leaves(Class<?> type) {
        if (!type.isSealed()) return List.of(type.getSimpleName());
        return Arrays.stream(type.getPermittedSubclasses()).flatMap(t -> leaves(t).stream()).toList();
    }

    @Test
    void everyNodeQuestionAndEveryAnswerHasAGoldenFrame() throws Exception {
        Set<String> carried = new HashSet<>();
        for (JsonNode c : cases()) if (c.has("carries")) carried.add(c.get("carries").asText());
        assertThat(carried).as("golden node questions and answers")
                .containsAll(leaves(NodeQuestion.class)).containsAll(leaves(NodeQuestion.Answer.class));
        assertThat(leaves(NodeQuestion.class)).hasSizeGreaterThanOrEqualTo(4);
    }

    @Test
    void aNodeQuestionAndItsAnswerAreReadTyped() throws Exception {
        for (JsonNode c : cases()) {
            Frame frame = decode(HEX.parseHex(c.get("frame_hex").asText()));
            switch (c.get("name").asText()) {
                case "node_ask_logs" -> assertThat(((LinkMessage.Ask) LinkCodec.toNode(frame)).question())
                        .isEqualTo(new NodeQuestion.ReadLog("err", 100, 512, null, "0123456789abcdef0123456701000000", 0));
                case "node_ask_stack" -> assertThat(((LinkMessage.Ask) LinkCodec.toNode(frame)).question())
                        .isEqualTo(new NodeQuestion.DumpStacks(List.of(new NodeQuestion.StackTarget(4242, true),
                                new NodeQuestion.StackTarget(77, false)), 3000));
                case "node_answer_ProbeResults" -> assertThat(((LinkMessage.AskAnswer) LinkCodec.toHead(frame)).answer())
                        .isEqualTo(new NodeQuestion.ProbeResults(List.of(
                                new NodeQuestion.ProbeResult("ab".repeat(28), "10.0.0.3:41234", true, 0.4, null),
                                new NodeQuestion.ProbeResult("ef".repeat(28), "10.0.0.4:-1", false, null,
                                        "the node has no probe port (its node IP could not be bound)"))));
                default -> {
                }
            }
        }
    }

    @Test
    void aBadNodeQuestionOrAnswerNamesTheFieldThatWasWrong() throws BadRequest {
        ObjectNode ask = FrameCodec.json().createObjectNode().put("op", "node_ask").put("ask_id", 1).put("kind", "stack");
        ask.putObject("args").putArray("processes").addObject().put("pid", "many").put("role", "actor");
        assertThatThrownBy(() -> LinkCodec.toNode(new Frame(ask))).isInstanceOf(BadRequest.class)
                .hasMessageContaining("node_ask stack process").hasMessageContaining("pid");
        ObjectNode answer = FrameCodec.json().createObjectNode().put("op", "node_answer").put("ask_id", 1).put("kind", "logs");
        answer.putObject("result").put("file", "a.log");
        // an answer that does not read fails its ask at once, saying why, rather than leaving it to time out
        assertThat(((LinkMessage.AskAnswer) LinkCodec.toHead(new Frame(answer))).error())
                .contains("its answer did not read").contains("node_answer logs").contains("text");
        ObjectNode unnamed = FrameCodec.json().createObjectNode().put("op", "node_answer").put("ask_id", 1);
        unnamed.putArray("result");
        assertThat(((LinkMessage.AskAnswer) LinkCodec.toHead(new Frame(unnamed))).error()).contains("kind");
        ObjectNode many = FrameCodec.json().createObjectNode().put("op", "node_ask").put("ask_id", 1).put("kind", "probe");
        var targets = many.putArray("args");
        for (int i = 0; i <= NodeQuestionCodec.MAX_ITEMS; i++) targets.addObject().put("node_id", "n").put("ip", "x").put("port", 1);
        assertThatThrownBy(() -> LinkCodec.toNode(new Frame(many))).hasMessageContaining("more than 4096 items");
    }

    @Test
    void everyMessageOfEitherDirectionHasAGoldenFrame() throws Exception {
        Set<String> covered = new HashSet<>();
        for (JsonNode c : cases()) covered.add(c.get("message").asText());
        for (Class<?> direction : new Class<?>[] {LinkMessage.ToHead.class, LinkMessage.ToNode.class,
                LinkMessage.JoinAnswer.class}) {
            Arrays.stream(direction.getPermittedSubclasses())
                    .forEach(type -> assertThat(covered).as("golden frames").contains(type.getSimpleName()));
        }
        assertThat(covered).contains("Challenge", "Join");
    }

    @Test
    void fieldsAreReadTyped() throws Exception {
        LinkMessage.StartActor start = null;
        for (JsonNode c : cases()) {
            if (c.get("name").asText().equals("start_actor")) {
                start = (LinkMessage.StartActor) LinkCodec.toNode(decode(HEX.parseHex(c.get("frame_hex").asText())));
            }
        }
        assertThat(start).isNotNull();
        assertThat(start.acceleratorIds()).containsEntry("GPU", List.of("0", "1"));
        assertThat(start.context().sysPath()).containsExactly("/home/u", "/opt/lib");
        assertThat(start.ompThreads()).isEqualTo(1);
    }

    @Test
    void aBadOrUnknownLinkFrameNamesWhatWasWrong() {
        ObjectNode started = FrameCodec.json().createObjectNode().put("op", "actor_started")
                .put("actor_id", "0123456789abcdef0123456701000000").put("pid", "many");
        assertThatThrownBy(() -> LinkCodec.toHead(new Frame(started))).isInstanceOf(BadRequest.class)
                .hasMessageContaining("actor_started").hasMessageContaining("pid");
        ObjectNode kill = FrameCodec.json().createObjectNode().put("op", "kill_actor");
        assertThatThrownBy(() -> LinkCodec.toHead(new Frame(kill))).hasMessageContaining("unknown link op 'kill_actor'");
        ObjectNode context = FrameCodec.json().createObjectNode().put("op", "start_actor");
        context.putObject("context").put("sys_path", 5);
        assertThatThrownBy(() -> LinkCodec.toNode(new Frame(context))).hasMessageContaining("start_actor context")
                .hasMessageContaining("sys_path");
    }

    @Test
    void aFirstFrameThatIsNotAJoinIsNone() {
        assertThat(LinkCodec.join(new Frame(Frames.header("hello")))).isNull();
    }
}
