package beam.daemon;

import beam.codec.FrameCodec;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.TreeMap;

/**
 * A session directory like Ray's: {@code <temp>/session_<timestamp>_<pid>/} with
 * {@code sockets/} (owner-only, 0700), {@code logs/} (the daemon's log, one .out and one .err
 * per actor) and {@code node.json}, which tells clients on this machine how to connect.
 * {@code <temp>/session_latest} links to the newest.
 */
public final class SessionDir {
    private static final JsonFactory NODE_JSON = new JsonFactory();

    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd_HH-mm-ss_SSSSSS");

    private static final DateTimeFormatter START_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    private final Path tempDir;
    private final Path dir;
    private final LocalDateTime started;

    private SessionDir(Path tempDir, Path dir, LocalDateTime started) {
        this.tempDir = tempDir;
        this.dir = dir;
        this.started = started;
    }

    /**
     * The longest unix socket path the JDK binds on Linux (sun_path holds 108 bytes; the JDK
     * refuses 107 and more with "Unix domain path too long", naming neither path nor limit).
     */
    static final int MAX_SOCKET_PATH_BYTES = 106;

    private static final FileAttribute<?> OWNER_ONLY =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));

    /** Folders beam makes are its user's alone (0700): nobody else may list or plant files in them. */
    public static void createPrivateDirs(Path dir) throws IOException {
        Files.createDirectories(dir, OWNER_ONLY);
    }

    public static SessionDir create(Path tempDir) throws IOException {
        LocalDateTime now = LocalDateTime.now();
        Path dir = tempDir.resolve("session_" + now.format(STAMP) + "_" + ProcessHandle.current().pid());
        checkSocketPath(tempDir, dir);
        createPrivateDirs(tempDir);
        Files.createDirectory(dir, OWNER_ONLY);
        Files.createDirectory(dir.resolve("logs"), OWNER_ONLY);
        Files.createDirectory(dir.resolve("stacks"), OWNER_ONLY); // each process's stack dump file (ray stack)
        Path sockets = Files.createDirectory(dir.resolve("sockets"), OWNER_ONLY);
        Files.setPosixFilePermissions(sockets, PosixFilePermissions.fromString("rwx------"));
        Path latest = tempDir.resolve("session_latest");
        Path tmpLink = tempDir.resolve(".session_latest." + ProcessHandle.current().pid());
        Files.deleteIfExists(tmpLink);
        Files.createSymbolicLink(tmpLink, dir.getFileName());
        Files.move(tmpLink, latest, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return new SessionDir(tempDir, dir, now);
    }

    /**
     * Removes what a daemon that died without cleaning up (SIGKILL, a lost machine) left in
     * {@code tempDir}'s newest session: its node.json and socket. Called by {@code ray start}
     * once it knows no daemon runs there.
     */
    public static void removeStale(Path tempDir) {
        Path latest = tempDir.resolve("session_latest");
        try {
            Files.deleteIfExists(latest.resolve("node.json"));
            Files.deleteIfExists(latest.resolve("sockets").resolve("beamd.sock"));
        } catch (IOException e) {
            // best effort: clients ignore a stale node.json anyway
        }
    }

    /** The most digits a pid can have here: from the kernel's pid_max, else 7 (pid_max is at most 4,194,304). */
    static final int PID_DIGITS = pidDigits();

    private static int pidDigits() {
        try {
            // readAllLines: Files.readString returned the first byte only of this sysctl file here
            long max = Long.parseLong(Files.readAllLines(Path.of("/proc/sys/kernel/pid_max")).get(0).trim());
            return String.valueOf(Math.max(1, max - 1)).length();
        } catch (IOException | RuntimeException e) {
            return 7;
        }
    }

    /** The same check for {@code tempDir} alone, before anything is made in it. */
    public static void checkSocketPath(Path tempDir) {
        checkSocketPath(tempDir, tempDir.resolve("session_" + LocalDateTime.now().format(STAMP) + "_"
                + ProcessHandle.current().pid()));
    }

    /**
     * Fails before the session folder is made when the daemon's socket under it might not
     * be bound: counted with the widest pid this kernel hands out, so that whether a temp dir
     * fits does not depend on this process's pid.
     */
    private static void checkSocketPath(Path tempDir, Path dir) {
        String socket = dir.resolve("sockets").resolve("beamd.sock").toString();
        int pidDigits = String.valueOf(ProcessHandle.current().pid()).length();
        int bytes = socket.getBytes(StandardCharsets.UTF_8).length + Math.max(0, PID_DIGITS - pidDigits);
        if (bytes <= MAX_SOCKET_PATH_BYTES) return;
        int tempBytes = tempDir.toString().getBytes(StandardCharsets.UTF_8).length;
        throw new IllegalArgumentException("the temp dir " + tempDir + " is too long for the daemon's unix socket: its path "
                + tempDir + "/session_<time>_<pid>/sockets/beamd.sock can be " + bytes + " bytes long, and at most "
                + MAX_SOCKET_PATH_BYTES + " can be bound. Pick a --temp-dir (or RAY_TMPDIR) of at most "
                + (tempBytes - (bytes - MAX_SOCKET_PATH_BYTES)) + " bytes, such as /tmp/ray.");
    }

    public Path dir() {
        return dir;
    }

    public Path socketPath() {
        return dir.resolve("sockets").resolve("beamd.sock");
    }

    public Path logsDir() {
        return dir.resolve("logs");
    }

    /** Where each actor process and driver of this node keeps its stack dump file (StackDumps). */
    public Path stacksDir() {
        return dir.resolve("stacks");
    }

    public Path nodeJson() {
        return dir.resolve("node.json");
    }

    private String[] nodeFields; // what node.json says, kept for rewriting it with the HTTP ports; guarded by this
    private Map<String, Integer> httpPorts = Map.of();
    private String httpError;
    private boolean removed;

    synchronized void writeNodeJson(String nodeId, String nodeIp, String address, long pid) throws IOException {
        nodeFields = new String[] {nodeId, nodeIp, address, String.valueOf(pid)};
        writeNodeJson();
    }

    /** Adds the HTTP face's ports (face name to port) and what could not be bound, once it is up. */
    synchronized void writeHttp(Map<String, Integer> ports, String error) throws IOException {
        httpPorts = Map.copyOf(ports);
        httpError = error;
        if (nodeFields != null && !removed) writeNodeJson();
    }

    private void writeNodeJson() throws IOException {
        String nodeId = nodeFields[0];
        String nodeIp = nodeFields[1];
        String address = nodeFields[2];
        long pid = Long.parseLong(nodeFields[3]);
        // jackson-core's generator, not the mapper: this runs before `ray start` reports ready,
        // and the mapper costs ~16 ms to make (FrameCodec.json())
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JsonGenerator g = NODE_JSON.createGenerator(bytes)) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeNumberField("pid", pid);
            g.writeStringField("socket", socketPath().toString());
            g.writeStringField("address", address);
            g.writeStringField("node_id", nodeId);
            g.writeStringField("node_ip", nodeIp);
            g.writeStringField("session_dir", dir.toString());
            g.writeStringField("temp_dir", tempDir.toString());
            g.writeStringField("start_time", started.format(START_TIME));
            if (!httpPorts.isEmpty()) {
                g.writeObjectFieldStart("http_ports");
                for (var e : new TreeMap<>(httpPorts).entrySet()) g.writeNumberField(e.getKey(), e.getValue());
                g.writeEndObject();
            }
            if (httpError != null) g.writeStringField("http_error", httpError);
            g.writeEndObject();
        }
        Path tmp = dir.resolve("node.json.tmp");
        Files.write(tmp, bytes.toByteArray());
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
        Files.move(tmp, nodeJson(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    synchronized void removeNodeJson() {
        removed = true;
        try {
            Files.deleteIfExists(nodeJson());
        } catch (IOException ignored) {
            // best effort
        }
    }

    /** node.json of the newest session under {@code tempDir}, if its daemon is still running. */
    public static ObjectNode findRunning(Path tempDir) {
        Path nodeJson = tempDir.resolve("session_latest").resolve("node.json");
        if (!Files.isRegularFile(nodeJson)) return null;
        try {
            ObjectNode o = (ObjectNode) FrameCodec.json().readTree(nodeJson.toFile());
            return isRunning(o.path("pid").asLong()) ? o : null;
        } catch (IOException | ClassCastException e) {
            return null;
        }
    }

    /** Alive and not a zombie waiting to be reaped (which ProcessHandle counts as alive). */
    public static boolean isRunning(long pid) {
        if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) return false;
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
            String[] after = stat.substring(stat.lastIndexOf(')') + 1).trim().split(" ");
            return after.length == 0 || !after[0].equals("Z");
        } catch (IOException | RuntimeException e) {
            return true; // no /proc: trust ProcessHandle
        }
    }

    public Path tempDir() {
        return tempDir;
    }
}
