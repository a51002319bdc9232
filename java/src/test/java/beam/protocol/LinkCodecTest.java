package beam.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import beam.codec.Frame;
import beam.codec.FrameCodec;
import beam.codec.FrameLimits;
import beam.protocol.Request.BadRequest;
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
            assertThat(FrameCodec.encode(LinkCodec.encode(message))).as(name).isEqualTo(wire);
        }
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
