package beam.node;

import beam.util.NodeQuestion.ListLogs;
import beam.util.NodeQuestion.LogFile;
import beam.util.NodeQuestion.LogFiles;
import beam.util.NodeQuestion.LogRead;
import beam.util.NodeQuestion.LogRefused;
import beam.util.NodeQuestion.LogText;
import beam.util.NodeQuestion.ReadLog;
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
 * own log). Two questions (beam.util.NodeQuestion):
 * <ul>
 * <li>{@link ListLogs}: the names (relative to {@code logs/}) and sizes of the files its glob
 *     matches, at most {@link #MAX_FILES};
 * <li>{@link ReadLog}: one file's last {@code lines} lines (read backwards from its end), or
 *     (with an {@code offset}) what was written after that offset; at most
 *     {@link #MAX_READ_BYTES} either way, and {@code truncated} when more was there.
 * </ul>
 * A bad question is answered with why ({@link LogRefused}, {@link LogFiles#error()}). Only plain files directly in {@code logs/} are
 * ever opened: a glob or a name with a path separator, {@code ..} or a leading dot is
 * refused, and symbolic links are neither listed nor followed, so no ask reads outside it.
 */
public final class NodeLogs {
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

    private final Path dir;

    public NodeLogs(Path logsDir) {
        this.dir = logsDir.toAbsolutePath().normalize();
    }

    /** The files {@code ask} names, on a virtual thread (it reads the disk). */
    public CompletableFuture<LogFiles> files(ListLogs ask) {
        return CompletableFuture.supplyAsync(() -> list(ask.glob()), NodeLogs::virtual);
    }

    /** The text {@code ask} names, on a virtual thread. */
    public CompletableFuture<LogRead> read(ReadLog ask) {
        return CompletableFuture.supplyAsync(() -> readNow(ask), NodeLogs::virtual);
    }

    private static void virtual(Runnable r) {
        Thread.ofVirtual().name("log read").start(r);
    }

    LogFiles list(String glob) {
        String bad = checkGlob(glob);
        if (bad != null) return new LogFiles(List.of(), false, bad);
        PathMatcher matcher = FileSystems.getDefault().getPathMatcher("glob:" + glob);
        List<LogFile> found = new ArrayList<>();
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
                found.add(new LogFile(name.toString(), a.size()));
            }
        } catch (IOException e) {
            return new LogFiles(List.of(), false, "cannot list " + dir + ": " + e.getMessage());
        }
        found.sort((x, y) -> x.name().compareTo(y.name()));
        return new LogFiles(found, truncated, null);
    }

    LogRead readNow(ReadLog ask) {
        String stream = ask.stream();
        if (!stream.equals("out") && !stream.equals("err")) return error("stream must be 'out' or 'err', not " + clip(stream));
        String name;
        if (ask.file() != null) {
            name = ask.file();
            String bad = checkName(name);
            if (bad != null) return error(bad);
        } else if (ask.actorId() != null || ask.pid() > 0) {
            String pattern = ask.actorId() != null
                    ? "actor-*-" + ask.actorId() + "-*." + stream
                    : "actor-*-" + ask.pid() + "." + stream;
            if (ask.actorId() != null && !ask.actorId().matches("[0-9a-f]{32}")) {
                return error("actor id " + clip(ask.actorId()) + " is not 32 hex characters");
            }
            LogFiles listed = list(pattern);
            if (listed.error() != null) return error(listed.error());
            if (listed.files().isEmpty()) {
                return error("no " + (stream.equals("out") ? "stdout" : "stderr") + " file of "
                        + (ask.actorId() != null ? "actor " + ask.actorId() : "a worker with pid " + ask.pid()) + " in " + dir);
            }
            name = listed.files().getLast().name(); // a pid reused: the newest name sorts last
        } else {
            return error("say which file: 'file', 'actor_id' or 'pid'");
        }
        Path file = dir.resolve(name);
        int lines = Math.max(1, Math.min(MAX_LINES, ask.lines()));
        long offset = ask.offset();
        // checked before opening too: opening a fifo would block; NOFOLLOW_LINKS makes the open itself refuse a link
        if (Files.exists(file, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            return error(name + " is not a plain file of " + dir);
        }
        try (SeekableByteChannel ch = Files.newByteChannel(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            long size = ch.size();
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
                return new LogText(name, new String(buf.array(), 0, keep, StandardCharsets.UTF_8), from + keep,
                        from + keep < size);
            }
            return tail(name, ch, size, lines);
        } catch (java.nio.file.NoSuchFileException e) {
            return error("no file " + name + " in " + dir);
        } catch (IOException e) {
            return error("cannot read " + name + ": " + e.getMessage());
        }
    }

    /** The last {@code lines} lines before {@code size}, read backwards in chunks, at most MAX_READ_BYTES. */
    private static LogText tail(String name, SeekableByteChannel ch, long size, int lines) throws IOException {
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
        return new LogText(name, new String(buf.array(), from, buf.position() - from, StandardCharsets.UTF_8),
                start + buf.position(), cut);
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

    static LogRefused error(String message) {
        return new LogRefused(message);
    }

    private static String clip(String s) {
        String safe = s.replaceAll("[^\\x20-\\x7e]", "?");
        return "'" + (safe.length() > 60 ? safe.substring(0, 60) + "..." : safe) + "'";
    }
}
