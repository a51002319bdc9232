package beam.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import beam.codec.Frame;
import beam.codec.FrameCodec;
import beam.codec.FrameLimits;
import beam.protocol.Request.BadRequest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The client requests' golden frames (tests/golden/request_frames.json, made by gen_frames.py):
 * one per {@link Request} record, each read into the record written out below field by field,
 * and that record written back to the same header.
 */
class RequestCodecTest {
    private static final ObjectMapper JSON = FrameCodec.json();
    private static final String ACTOR = "0123456789abcdef0123456701000000";
    private static final String NODE = "ab".repeat(28);
    private static final String PG = "0123456789abcdef0123456789ab01000000";
    private static final String OID = "00".repeat(24) + "00000000";

    /** Node equality where numbers compare by value (1234 read is an int, written a long). */
    private static final Comparator<JsonNode> SAME_NUMBER = (a, b) -> a.equals(b)
            || a.isNumber() && b.isNumber() && a.decimalValue().compareTo(b.decimalValue()) == 0 ? 0 : 1;

    /** What each golden header must read as, by record name. */
    private static Map<String, Request> expected() throws Exception {
        Map<String, Request> e = new HashMap<>();
        e.put("Hello", new Request.Hello(1, 1, "worker", ACTOR, 1234, "/usr/bin/python3", "/home/u",
                List.of("/home/u", "/usr/lib/python3.11"), false, "ns"));
        e.put("CreateActor", new Request.CreateActor(2, ACTOR, "Worker", "w0", "ns",
                (ObjectNode) JSON.readTree("{\"num_cpus\":0,\"num_gpus\":1.0,\"max_concurrency\":1,\"is_async\":false,\"methods\":[\"run\"]}"), true));
        e.put("Call", new Request.Call(ACTOR, OID, "execute_method", "init_device"));
        e.put("Kill", new Request.Kill(3, ACTOR, true));
        e.put("Lend", new Request.Lend(ACTOR));
        e.put("Borrow", new Request.Borrow(ACTOR, true));
        e.put("Release", new Request.Release(ACTOR));
        e.put("GetActor", new Request.GetActor(4, "w0", "ns"));
        e.put("PgCreate", new Request.PgCreate(-1, PG, "g", "STRICT_PACK",
                JSON.readTree("[{\"GPU\":1.0,\"CPU\":1.0},{\"GPU\":1.0}]"), null, true));
        e.put("PgRemove", new Request.PgRemove(5, PG));
        e.put("PgTable", new Request.PgTable(6, PG));
        e.put("PgWatch", new Request.PgWatch(7, PG));
        e.put("ClusterState", new Request.ClusterState(8));
        e.put("Status", new Request.Status(9));
        e.put("StateList", new Request.StateList(10, "actors", JSON.readTree("[[\"state\",\"=\",\"ALIVE\"]]"), 5, true, ACTOR));
        e.put("StateSummary", new Request.StateSummary(11, "tasks", null));
        e.put("Shutdown", new Request.Shutdown(12));
        e.put("Disconnect", new Request.Disconnect(13));
        e.put("Doctor", new Request.Doctor(14));
        e.put("Logs", new Request.Logs(15, ACTOR, 0, null, null, NODE, true, 50, 4096));
        e.put("Stack", new Request.Stack(16, "10.0.0.2", null, 4242));
        e.put("DaemonStats", new Request.DaemonStats(17, true));
        e.put("Metrics", new Request.Metrics(JSON.readTree(
                "[{\"name\":\"requests\",\"kind\":\"counter\",\"description\":\"\",\"tags\":{},\"value\":12.0}]")));
        e.put("ActorReady", new Request.ActorReady(ACTOR, "Worker(rank=0)"));
        e.put("ActorFailed", new Request.ActorFailed(ACTOR, "ZeroDivisionError: division by zero"));
        e.put("Result", new Request.Result(OID, "error", "ValueError", "bad method"));
        return e;
    }

    private static JsonNode cases() throws Exception {
        return JSON.readTree(Files.readAllBytes(Path.of("..", "tests", "golden", "request_frames.json")));
    }

    /** The records of a sealed type: its permitted subclasses, and theirs when they are sealed too. */
    private static List<Class<?>> leaves(Class<?> type) {
        if (!type.isSealed()) return List.of(type);
        return Arrays.stream(type.getPermittedSubclasses()).flatMap(t -> leaves(t).stream()).distinct().toList();
    }

    @Test
    void everyRequestRecordHasAGoldenFrame() throws Exception {
        List<String> golden = new java.util.ArrayList<>();
        for (JsonNode c : cases()) golden.add(c.get("request").asText());
        List<Class<?>> records = leaves(Request.class);
        // MayWait's records are reached through it: the recursion is what finds Logs and DaemonStats
        assertThat(records).as("Request records").hasSizeGreaterThanOrEqualTo(26).contains(Request.Logs.class,
                Request.DaemonStats.class);
        for (Class<?> record : records) {
            assertThat(golden).as("a golden frame of Request." + record.getSimpleName() + " in tests/golden/request_frames.json"
                    + " (add it to REQUESTS in tests/golden/gen_frames.py)").contains(record.getSimpleName());
            assertThat(RequestCodec.op(record.asSubclass(Request.class))).as("op name of " + record).isNotNull();
        }
        assertThat(expected().keySet()).containsExactlyInAnyOrderElementsOf(records.stream().map(Class::getSimpleName).toList());
    }

    @Test
    void everyGoldenHeaderReadsIntoItsRecordAndTheRecordWritesItBack() throws Exception {
        Map<String, Request> expected = expected();
        for (JsonNode c : cases()) {
            String name = c.get("request").asText();
            byte[] wire = HexFormat.of().parseHex(c.get("frame_hex").asText());
            Frame frame = new FrameCodec(FrameLimits.DEFAULT).decode(new ByteArrayInputStream(wire));
            Request read = RequestCodec.parse(frame.header());
            assertThat(read).as(name).isEqualTo(expected.get(name));
            ObjectNode golden = ((ObjectNode) c.get("header")).deepCopy();
            golden.remove("plen"); // the payload's length is the frame's, not the request's
            assertThat(RequestCodec.encode(read).equals(SAME_NUMBER, golden)).as(name + ": " + RequestCodec.encode(read)
                    + " written, " + golden + " golden").isTrue();
            assertThat(RequestCodec.parse(RequestCodec.encode(expected.get(name)))).as(name).isEqualTo(expected.get(name));
            // the frame written from the record is the golden one, byte for byte
            assertThat(FrameCodec.encode(new Frame(RequestCodec.encode(read), frame.payload()))).as(name).isEqualTo(wire);
        }
    }

    @Test
    void theRequestsThatMayWaitAreTheMayWaitRecords() {
        for (Class<?> type : leaves(Request.class)) {
            String op = RequestCodec.op(type.asSubclass(Request.class));
            assertThat(RequestCodec.mayWait(op)).as(op).isEqualTo(Request.MayWait.class.isAssignableFrom(type));
        }
        assertThat(RequestCodec.mayWait("doctor")).isTrue();
        assertThat(RequestCodec.mayWait("call")).isFalse();
        assertThat(RequestCodec.mayWait("no_such_op")).isFalse();
    }

    @Test
    void aBadOneWayRequestNamesWhereItsRefusalGoes() {
        ObjectNode call = JSON.createObjectNode().put("op", "call").put("actor_id", ACTOR).put("oid", OID).put("method", 5);
        assertThatThrownBy(() -> RequestCodec.parse(call)).isInstanceOfSatisfying(BadRequest.class, e -> {
            assertThat(e.getMessage()).contains("call").contains("method");
            assertThat(e.oid()).isEqualTo(OID);
            assertThat(e.pgId()).isNull();
        });
        ObjectNode group = JSON.createObjectNode().put("op", "pg_create").put("pg_id", PG).put("strategy", "PACK");
        assertThatThrownBy(() -> RequestCodec.parse(group)).isInstanceOfSatisfying(BadRequest.class, e -> {
            assertThat(e.getMessage()).contains("bundles");
            assertThat(e.pgId()).isEqualTo(PG);
        });
        ObjectNode withRid = JSON.createObjectNode().put("op", "kill").put("rid", 9).put("actor_id", 42);
        assertThatThrownBy(() -> RequestCodec.parse(withRid)).isInstanceOfSatisfying(BadRequest.class, e -> {
            assertThat(e.rid()).isEqualTo(9);
            assertThat(e.oid()).isNull();
        });
        ObjectNode unknown = JSON.createObjectNode().put("op", "frobnicate").put("rid", 3);
        assertThatThrownBy(() -> RequestCodec.parse(unknown)).hasMessageContaining("unknown op 'frobnicate'");
        ObjectNode unknownOneWay = JSON.createObjectNode().put("op", "frobnicate").put("oid", OID);
        assertThatThrownBy(() -> RequestCodec.parse(unknownOneWay)).isInstanceOfSatisfying(BadRequest.class,
                e -> assertThat(e.oid()).isEqualTo(OID));
    }
}
