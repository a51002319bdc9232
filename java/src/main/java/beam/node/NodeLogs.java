package beam.node;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;

/**
 * This node's side of {@code ray logs} and the dashboard's log tail: the files in its
 * session's {@code logs/} folder (one .out and one .err per actor process, named
 * {@code actor-<Class>-<actor id>-<pid>.<out|err>} by {@link NodeAgent}, and the daemon's
 * own log). Two kinds of ask, answered as JSON:
 * <ul>
 * <li>{@code log_files} {@code {glob}}: the names (relative to {@code logs/}) and sizes of
 *     the files the glob matches, at most {@link #MAX_FILES};
 * <li>{@code logs} {@code {file | actor_id | pid, stream, lines, offset}}: one file's last
 *     {@code lines} lines (read backwards from its end), or (with {@code offset}) what was
 *     written after that offset; at most {@link #MAX_READ_BYTES} either way, and
 *     {@code truncated} when more was there.
 * </ul>
 * A bad ask answers {@code {"error": ...}}. Only plain files directly in {@code logs/} are
 * ever opened: a glob or a name with a path separator, {@code ..} or a leading dot is
 * refused, and symbolic links are neither listed nor followed, so no ask reads outside it.
 */
public final class NodeLogs {
    public static final String FILES_KIND = "log_files";
    public static final String READ_KIND = "logs";
    /** Most files one listing names. */
    static final int MAX_FILES = 1_000;
    /** Most lines one tail returns (Ray's {@code --tail -1}, "all", is capped here too). */
    public static final int MAX_LINES = 100_000;
    /**
     * Most bytes one read returns: a tail of a multi-GB file costs at most this much memory,
     * and the answer, JSON-escaped in one link frame header (1 MiB at most), stays under that
     * limit even if every byte were a control character (6 bytes escaped).
     */
    public static final int MAX_READ_BYTES = 128 << 10;
    private static final int CHUNK = 64 << 10;
    private static final int MAX_GLOB_CHARS = 200;
    /** A glob's characters: a file name's, and glob syntax, never a path separator. */
    private static final Pattern GLOB = Pattern.compile("[A-Za-z0-9_.\\-*?\\[\\]{},!]+");
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private final Path dir;

    public NodeLogs(Path logsDir) {
        this.dir = logsDir.toAbsolutePath().normalize();
    }

    /** The answer to an ask of {@link #FILES_KIND}, on a virtual thread (it reads the disk). */
    public CompletableFuture<JsonNode> files(JsonNode args) {
        return CompletableFuture.supplyAsync(() -> list(args.path("glob").asText("*")), NodeLogs::virtual);
    }

    /** The answer to an ask of {@link #READ_KIND}, on a virtual thread. */
    public CompletableFuture<JsonNode> read(JsonNode args) {
        return CompletableFuture.supplyAsync(() -> readNow(args), NodeLogs::virtual);
    }

    private static void virtual(Runnable r) {
        Thread.ofVirtual().name("log read").start(r);
    }

    ObjectNode list(String glob) {
        String bad = checkGlob(glob);
        if (bad != null) return error(bad);
        PathMatcher matcher = FileSystems.getDefault().getPathMatcher("glob:" + glob);
        List<String[]> found = new ArrayList<>();
        boolean truncated = false;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                Path name = p.getFileName();
                if (name.toString().startsWith(".") || !matcher.matches(name)) continue;
                BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                if (!a.isRegularFile()) continue; // no links, no folders
                if (found.size() == MAX_FILES) {
                    truncated = true;
                    break;
                }
                found.add(new String[] {name.toString(), String.valueOf(a.size())});
            }
        } catch (IOException e) {
            return error("cannot list " + dir + ": " + e.getMessage());
        }
        found.sort((x, y) -> x[0].compareTo(y[0]));
        ObjectNode out = F.objectNode();
        ArrayNode files = out.putArray("files");
        for (String[] f : found) files.addObject().put("name", f[0]).put("size", Long.parseLong(f[1]));
        out.put("truncated", truncated);
        return out;
    }

    ObjectNode readNow(JsonNode args) {
        String stream = args.path("stream").asText("out");
        if (!stream.equals("out") && !stream.equals("err")) return error("stream must be 'out' or 'err', not " + clip(stream));
        String name;
        if (args.hasNonNull("file")) {
            name = args.path("file").asText();
            String bad = checkName(name);
            if (bad != null) return error(bad);
        } else if (args.hasNonNull("actor_id") || args.hasNonNull("pid")) {
            String pattern = args.hasNonNull("actor_id")
                    ? "actor-*-" + args.path("actor_id").asText() + "-*." + stream
                    : "actor-*-" + args.path("pid").asLong() + "." + stream;
            if (args.hasNonNull("actor_id") && !args.path("actor_id").asText().matches("[0-9a-f]{32}")) {
                return error("actor id " + clip(args.path("actor_id").asText()) + " is not 32 hex characters");
            }
            ObjectNode listed = list(pattern);
            if (listed.has("error")) return listed;
            JsonNode files = listed.path("files");
            if (files.isEmpty()) {
                return error("no " + (stream.equals("out") ? "stdout" : "stderr") + " file of "
                        + (args.hasNonNull("actor_id") ? "actor " + args.path("actor_id").asText()
                        : "a worker with pid " + args.path("pid").asLong()) + " in " + dir);
            }
            name = files.get(files.size() - 1).path("name").asText(); // a pid reused: the newest name sorts last
        } else {
            return error("say which file: 'file', 'actor_id' or 'pid'");
        }
        Path file = dir.resolve(name);
        int lines = Math.max(1, Math.min(MAX_LINES, args.path("lines").asInt(1_000)));
        long offset = args.path("offset").asLong(-1);
        // checked before opening too: opening a fifo would block; NOFOLLOW_LINKS makes the open itself refuse a link
        if (Files.exists(file, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            return error(name + " is not a plain file of " + dir);
        }
        try (SeekableByteChannel ch = Files.newByteChannel(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            long size = ch.size();
            ObjectNode out = F.objectNode();
            out.put("file", name);
            if (offset >= 0) {
                // a file cut shorter than the offset was rewritten: read it again from its start
                long from = offset > size ? 0 : offset;
                int n = (int) Math.min(MAX_READ_BYTES, size - from);
                ByteBuffer buf = ByteBuffer.allocate(n);
                ch.position(from);
                while (buf.hasRemaining() && ch.read(buf) > 0) {
                    // fill
                }
                int keep = utf8Whole(buf.array(), buf.position());
                out.put("text", new String(buf.array(), 0, keep, StandardCharsets.UTF_8));
                out.put("offset", from + keep);
                out.put("truncated", from + keep < size);
            } else {
                tail(ch, size, lines, out);
            }
            return out;
        } catch (java.nio.file.NoSuchFileException e) {
            return error("no file " + name + " in " + dir);
        } catch (IOException e) {
            return error("cannot read " + name + ": " + e.getMessage());
        }
    }

    /** The last {@code lines} lines before {@code size}, read backwards in chunks, at most MAX_READ_BYTES. */
    private static void tail(SeekableByteChannel ch, long size, int lines, ObjectNode out) throws IOException {
        long start = size;
        int newlines = 0;
        byte[] chunk = new byte[CHUNK];
        search:
        while (start > 0 && size - start < MAX_READ_BYTES) {
            int n = (int) Math.min(CHUNK, Math.min(start, MAX_READ_BYTES - (size - start)));
            ch.position(start - n);
            ByteBuffer buf = ByteBuffer.wrap(chunk, 0, n);
            while (buf.hasRemaining() && ch.read(buf) > 0) {
                // fill
            }
            for (int i = n - 1; i >= 0; i--) {
                if (chunk[i] != '\n') continue;
                if (start - n + i == size - 1) continue; // the last line's own end does not count
                if (++newlines == lines) {
                    start = start - n + i + 1;
                    break search;
                }
            }
            start -= n;
        }
        int n = (int) (size - start);
        ByteBuffer buf = ByteBuffer.allocate(n);
        ch.position(start);
        while (buf.hasRemaining() && ch.read(buf) > 0) {
            // fill
        }
        boolean cut = start > 0 && newlines < lines; // stopped by MAX_READ_BYTES, not by the line count
        int from = 0;
        while (cut && from < buf.position() && (buf.array()[from] & 0xc0) == 0x80) from++; // not half a character
        out.put("text", new String(buf.array(), from, buf.position() - from, StandardCharsets.UTF_8));
        out.put("offset", start + buf.position());
        out.put("truncated", cut);
    }

    /** {@code len}, less a UTF-8 sequence cut at the end (the next read starts with it whole). */
    static int utf8Whole(byte[] b, int len) {
        for (int back = 1; back <= Math.min(3, len); back++) {
            int c = b[len - back] & 0xff;
            if ((c & 0xc0) == 0x80) continue; // a continuation byte: look further back for its lead
            int need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
            return need > back ? len - back : len;
        }
        return len;
    }

    /** Why {@code glob} may not be used, or null. */
    static String checkGlob(String glob) {
        if (glob.isEmpty() || glob.length() > MAX_GLOB_CHARS || !GLOB.matcher(glob).matches() || glob.contains("..")
                || glob.startsWith(".")) {
            return "the glob " + clip(glob) + " is not allowed: it matches file names in the session's logs/ folder "
                    + "only (letters, digits, '_', '-', '.' and * ? [ ] { }; no '/', no '..', no leading '.'), "
                    + "e.g. 'actor-*.err' or '*.log'";
        }
        return null;
    }

    /** Why {@code name} is not a file of logs/, or null. */
    static String checkName(String name) {
        if (name.isEmpty() || name.length() > MAX_GLOB_CHARS || !name.matches("[A-Za-z0-9_.\\-]+")
                || name.startsWith(".")) {
            return "the file name " + clip(name) + " is not a file of the session's logs/ folder (a plain name: "
                    + "no '/', no '..', no leading '.'); `ray logs cluster` lists them";
        }
        return null;
    }

    static ObjectNode error(String message) {
        return F.objectNode().put("error", message);
    }

    private static String clip(String s) {
        String safe = s.replaceAll("[^\\x20-\\x7e]", "?");
        return "'" + (safe.length() > 60 ? safe.substring(0, 60) + "..." : safe) + "'";
    }
}
