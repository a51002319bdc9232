package beam.node;

import static org.assertj.core.api.Assertions.assertThat;

import beam.util.NodeQuestion.LogFiles;
import beam.util.NodeQuestion.LogRead;
import beam.util.NodeQuestion.LogRefused;
import beam.util.NodeQuestion.LogText;
import beam.util.NodeQuestion.ReadLog;
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

    private static ReadLog file(String name, int lines, long offset) {
        return new ReadLog("out", lines, offset, name, null, 0);
    }

    private static ReadLog file(String name) {
        return file(name, 1_000, -1);
    }

    private static ReadLog actor(String id, String stream) {
        return new ReadLog(stream, 1_000, -1, null, id, 0);
    }

    private static ReadLog pid(long pid, String stream) {
        return new ReadLog(stream, 1_000, -1, null, null, pid);
    }

    private static LogText text(LogRead read) {
        assertThat(read).isInstanceOf(LogText.class);
        return (LogText) read;
    }

    private static String refusal(LogRead read) {
        assertThat(read).isInstanceOf(LogRefused.class);
        return ((LogRefused) read).message();
    }

    private static String names(LogFiles files) {
        return files.files().stream().map(f -> f.name() + ":" + f.size()).toList().toString();
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
        assertThat(text(node.readNow(file("a.log", 3, -1))).text())
                .isEqualTo("line 7\nline 8\nline 9\n");
        assertThat(text(node.readNow(file("b.log", 2, -1))).text()).isEqualTo("two\nthree");
        LogText all = text(node.readNow(file("a.log", 100, -1)));
        assertThat(all.text()).isEqualTo(String.join("\n", numbered(10)) + "\n");
        assertThat(all.truncated()).isFalse();
        assertThat(all.offset()).isEqualTo(Files.size(logs.resolve("a.log")));
    }

    @Test
    void aTailAcrossChunksCountsEveryLine(@TempDir Path logs) throws Exception {
        Files.write(logs.resolve("big.log"), numbered(20_000)); // ~200 KiB: more than three 64 KiB chunks
        LogText r = text(new NodeLogs(logs).readNow(file("big.log", 9_000, -1)));
        List<String> got = List.of(r.text().split("\n"));
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
        LogText r = text(new NodeLogs(logs).readNow(file("huge.log", 1_000, -1)));
        assertThat(r.truncated()).isTrue();
        assertThat(r.text().length()).isEqualTo(NodeLogs.MAX_READ_BYTES);
        assertThat(r.text()).endsWith("the end\n");
    }

    @Test
    void offsetReadsReturnWhatCameAfterAndStartOverOnATruncatedFile(@TempDir Path logs) throws Exception {
        Path f = logs.resolve("f.log");
        Files.writeString(f, "first\n");
        NodeLogs node = new NodeLogs(logs);
        long offset = text(node.readNow(file("f.log"))).offset();
        Files.writeString(f, "first\nsecond\n");
        LogText next = text(node.readNow(file("f.log", 1_000, offset)));
        assertThat(next.text()).isEqualTo("second\n");
        assertThat(next.offset()).isEqualTo(13);
        Files.writeString(f, "new\n"); // rewritten, shorter than the offset
        assertThat(text(node.readNow(file("f.log", 1_000, 13))).text()).isEqualTo("new\n");
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
        assertThat(text(node.readNow(actor(ACTOR, "out"))).text()).isEqualTo("out\n");
        assertThat(text(node.readNow(actor(ACTOR, "err"))).text()).isEqualTo("err\n");
        assertThat(text(node.readNow(pid(4242, "out"))).file()).isEqualTo("actor-Engine-" + ACTOR + "-4242.out");
        assertThat(refusal(node.readNow(pid(242, "out")))).startsWith("no stdout file of a worker with pid 242");
        assertThat(refusal(node.readNow(actor("*", "out")))).contains("not 32 hex characters");
        assertThat(refusal(node.readNow(pid(4242, "../x")))).contains("stream must be");
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
        assertThat(names(node.list("*"))).isEqualTo("[ok.log:3]");
        assertThat(refusal(node.readNow(file("link.log")))).contains("not a plain file");
        assertThat(refusal(node.readNow(file("dir.log")))).contains("not a plain file");
        for (String name : List.of("../secret", "/etc/passwd", "..", ".hidden.log", "a/b", "", "x".repeat(300))) {
            assertThat(refusal(node.readNow(file(name)))).as(name).contains("is not a file of");
        }
        for (String glob : List.of("../*", "/etc/*", "*/x", "..", ".*", "a\\b", "**/../*", "x\u0000")) {
            assertThat(node.list(glob).error()).as(glob).contains("is not allowed");
        }
    }

    @Test
    void aListingIsSortedAndBounded(@TempDir Path logs) throws Exception {
        for (int i = 0; i < NodeLogs.MAX_FILES + 5; i++) Files.writeString(logs.resolve(String.format("f%05d.log", i)), "");
        LogFiles r = new NodeLogs(logs).list("f*.log");
        assertThat(r.files()).hasSize(NodeLogs.MAX_FILES);
        assertThat(r.truncated()).isTrue();
        assertThat(names(new NodeLogs(logs).list("f0000[12].log"))).isEqualTo("[f00001.log:0, f00002.log:0]");
    }
}
