package beam.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One node's reads of its logs/ folder: bounded tails, offset reads, and nothing outside the folder. */
class NodeLogsTest {
    private static final String ACTOR = "0123456789abcdef0123456789abcdef";

    private static ObjectNode args() {
        return JsonNodeFactory.instance.objectNode();
    }

    private static List<String> numbered(int n) {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < n; i++) lines.add("line " + i);
        return lines;
    }

    @Test
    void aTailIsTheLastLinesWithOrWithoutAFinalNewline(@TempDir Path logs) throws Exception {
        Files.write(logs.resolve("a.log"), numbered(10));
        Files.writeString(logs.resolve("b.log"), "one\ntwo\nthree");
        NodeLogs node = new NodeLogs(logs);
        assertThat(node.readNow(args().put("file", "a.log").put("lines", 3)).path("text").asText())
                .isEqualTo("line 7\nline 8\nline 9\n");
        assertThat(node.readNow(args().put("file", "b.log").put("lines", 2)).path("text").asText()).isEqualTo("two\nthree");
        ObjectNode all = node.readNow(args().put("file", "a.log").put("lines", 100));
        assertThat(all.path("text").asText()).isEqualTo(String.join("\n", numbered(10)) + "\n");
        assertThat(all.path("truncated").asBoolean()).isFalse();
        assertThat(all.path("offset").asLong()).isEqualTo(Files.size(logs.resolve("a.log")));
    }

    @Test
    void aTailAcrossChunksCountsEveryLine(@TempDir Path logs) throws Exception {
        Files.write(logs.resolve("big.log"), numbered(20_000)); // ~200 KiB: more than three 64 KiB chunks
        ObjectNode r = new NodeLogs(logs).readNow(args().put("file", "big.log").put("lines", 9_000));
        List<String> got = List.of(r.path("text").asText().split("\n"));
        assertThat(got).hasSize(9_000).startsWith("line 11000").endsWith("line 19999");
    }

    @Test
    void aTailOfAHugeFileReadsOnlyItsBoundFromTheEnd(@TempDir Path logs) throws Exception {
        Path huge = logs.resolve("huge.log");
        try (RandomAccessFile f = new RandomAccessFile(huge.toFile(), "rw")) {
            f.setLength(8L << 30); // 8 GiB, sparse: no newline in it but the last line's
            f.seek(f.length());
            f.write("the end\n".getBytes(StandardCharsets.UTF_8));
        }
        ObjectNode r = new NodeLogs(logs).readNow(args().put("file", "huge.log").put("lines", 1_000));
        assertThat(r.path("truncated").asBoolean()).isTrue();
        assertThat(r.path("text").asText().length()).isEqualTo(NodeLogs.MAX_READ_BYTES);
        assertThat(r.path("text").asText()).endsWith("the end\n");
    }

    @Test
    void offsetReadsReturnWhatCameAfterAndStartOverOnATruncatedFile(@TempDir Path logs) throws Exception {
        Path f = logs.resolve("f.log");
        Files.writeString(f, "first\n");
        NodeLogs node = new NodeLogs(logs);
        long offset = node.readNow(args().put("file", "f.log")).path("offset").asLong();
        Files.writeString(f, "first\nsecond\n");
        ObjectNode next = node.readNow(args().put("file", "f.log").put("offset", offset));
        assertThat(next.path("text").asText()).isEqualTo("second\n");
        assertThat(next.path("offset").asLong()).isEqualTo(13);
        Files.writeString(f, "new\n"); // rewritten, shorter than the offset
        assertThat(node.readNow(args().put("file", "f.log").put("offset", 13)).path("text").asText()).isEqualTo("new\n");
    }

    @Test
    void aReadNeverEndsInsideAUtf8Character() {
        byte[] euro = "ab\u20ac".getBytes(StandardCharsets.UTF_8); // a, b, then 3 bytes
        assertThat(NodeLogs.utf8Whole(euro, euro.length)).isEqualTo(euro.length);
        assertThat(NodeLogs.utf8Whole(euro, euro.length - 1)).isEqualTo(2);
        assertThat(NodeLogs.utf8Whole(euro, 3)).isEqualTo(2);
        assertThat(NodeLogs.utf8Whole(euro, 2)).isEqualTo(2);
    }

    @Test
    void anActorOrPidFindsItsStreamsFile(@TempDir Path logs) throws Exception {
        Files.writeString(logs.resolve("actor-Engine-" + ACTOR + "-4242.out"), "out\n");
        Files.writeString(logs.resolve("actor-Engine-" + ACTOR + "-4242.err"), "err\n");
        Files.writeString(logs.resolve("actor-Other-" + "f".repeat(32) + "-14242.out"), "other\n");
        NodeLogs node = new NodeLogs(logs);
        assertThat(node.readNow(args().put("actor_id", ACTOR)).path("text").asText()).isEqualTo("out\n");
        assertThat(node.readNow(args().put("actor_id", ACTOR).put("stream", "err")).path("text").asText()).isEqualTo("err\n");
        assertThat(node.readNow(args().put("pid", 4242)).path("file").asText()).isEqualTo("actor-Engine-" + ACTOR + "-4242.out");
        assertThat(node.readNow(args().put("pid", 242)).path("error").asText()).startsWith("no stdout file of a worker with pid 242");
        assertThat(node.readNow(args().put("actor_id", "*")).path("error").asText()).contains("not 32 hex characters");
        assertThat(node.readNow(args().put("pid", 4242).put("stream", "../x")).path("error").asText()).contains("stream must be");
    }

    @Test
    void nothingOutsideTheFolderIsListedOrRead(@TempDir Path root) throws Exception {
        Path logs = Files.createDirectory(root.resolve("logs"));
        Path secret = Files.writeString(root.resolve("secret"), "the secret\n");
        Files.createSymbolicLink(logs.resolve("link.log"), secret);
        Files.createDirectory(logs.resolve("dir.log"));
        Files.writeString(logs.resolve(".hidden.log"), "hidden\n");
        Files.writeString(logs.resolve("ok.log"), "ok\n");
        NodeLogs node = new NodeLogs(logs);
        assertThat(node.list("*").path("files").toString()).isEqualTo("[{\"name\":\"ok.log\",\"size\":3}]");
        assertThat(node.readNow(args().put("file", "link.log")).path("error").asText()).contains("not a plain file");
        assertThat(node.readNow(args().put("file", "dir.log")).path("error").asText()).contains("not a plain file");
        for (String name : List.of("../secret", "/etc/passwd", "..", ".hidden.log", "a/b", "", "x".repeat(300))) {
            assertThat(node.readNow(args().put("file", name)).path("error").asText()).as(name).contains("is not a file of");
        }
        for (String glob : List.of("../*", "/etc/*", "*/x", "..", ".*", "a\\b", "**/../*", "x\u0000")) {
            assertThat(node.list(glob).path("error").asText()).as(glob).contains("is not allowed");
        }
    }

    @Test
    void aListingIsSortedAndBounded(@TempDir Path logs) throws Exception {
        for (int i = 0; i < NodeLogs.MAX_FILES + 5; i++) Files.writeString(logs.resolve(String.format("f%05d.log", i)), "");
        ObjectNode r = new NodeLogs(logs).list("f*.log");
        assertThat(r.path("files")).hasSize(NodeLogs.MAX_FILES);
        assertThat(r.path("truncated").asBoolean()).isTrue();
        assertThat(new NodeLogs(logs).list("f0000[12].log").path("files").toString())
                .isEqualTo("[{\"name\":\"f00001.log\",\"size\":0},{\"name\":\"f00002.log\",\"size\":0}]");
    }
}
