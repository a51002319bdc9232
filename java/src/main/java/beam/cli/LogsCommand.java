package beam.cli;

import beam.config.Environment;
import beam.protocol.Request;
import beam.protocol.RequestCodec;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ray logs}, Ray's forms: {@code actor --id ID}, {@code worker --pid PID [--node-ip IP]}
 * and {@code cluster [GLOB] [--node-ip IP]} ({@code ray logs GLOB} is the same), each with
 * {@code --tail N} (Ray's default 1000; -1 the whole file) and {@code --follow}. The local
 * daemon asks the node that holds the file to read it (docs/PROTOCOL.md, {@code logs}), so
 * it works from any node for an actor on any node. Like Ray, {@code cluster} lists the files
 * on the head (or {@code --node-ip}'s node) unless the glob matches exactly one, which it prints.
 */
public final class LogsCommand {
    /** Ray's DEFAULT_LOG_LIMIT. */
    static final int DEFAULT_TAIL = 1_000;
    /** The most lines one tail asks for (the daemon's bound). */
    static final int MAX_TAIL = 100_000;
    /**
     * How often {@code --follow} asks for what was written since its last read. It polls by
     * offset rather than holding a subscription on the node: each ask is one bounded read
     * (at most NodeLogs.MAX_READ_BYTES) that leaves nothing behind when the CLI is killed
     * mid-follow, and four small asks a second cost the daemons next to nothing.
     */
    static final long FOLLOW_INTERVAL_MILLIS = 250;

    private LogsCommand() {
    }

    static CommandLine commandLine(Environment env) {
        CommandLine logs = new CommandLine(new ClusterLogs(env));
        logs.setCommandName("logs");
        logs.addSubcommand("cluster", new ClusterLogs(env));
        logs.addSubcommand("actor", new ActorLogs(env));
        logs.addSubcommand("worker", new WorkerLogs(env));
        return logs;
    }

    /** The options every form has. */
    static final class Common {
        @Option(names = "--tail", description = "Number of lines to tail from the log; -1 for the whole file (default: 1000).")
        int tail = DEFAULT_TAIL;

        @Option(names = {"-f", "--follow"}, description = "Stream the log file as it is written; Ctrl-C ends it.")
        boolean follow;

        @Option(names = {"-ip", "--node-ip"}, description = "The node's IP (default: the actor's node, else the head).")
        String nodeIp;

        @Option(names = {"-id", "--node-id"}, description = "The node's id, instead of its IP (ray list nodes).")
        String nodeId;

        @Mixin
        LocalDaemon daemon = new LocalDaemon();
    }

    @Command(name = "cluster", description = "List the log files on a node (the head by default), or print the one GLOB matches.")
    static final class ClusterLogs implements Callable<Integer> {
        private final Environment env;
        @Parameters(index = "0", arity = "0..1", description = "Glob of log file names (default: all).")
        String glob = "*";
        @Mixin
        Common common = new Common();

        ClusterLogs(Environment env) {
            this.env = env;
        }

        @Override
        public Integer call() throws IOException {
            return run(env, common, new Target(null, 0, glob, false), "logs cluster");
        }
    }

    @Command(name = "actor", description = "Print an actor's stdout (--err: stderr), read on the node that runs it.")
    static final class ActorLogs implements Callable<Integer> {
        private final Environment env;
        @Option(names = {"-a", "--id"}, required = true, description = "The actor's id (ray list actors).")
        String actorId;
        @Option(names = "--err", description = "Print stderr rather than stdout.")
        boolean err;
        @Mixin
        Common common = new Common();

        ActorLogs(Environment env) {
            this.env = env;
        }

        @Override
        public Integer call() throws IOException {
            if (!actorId.matches("[0-9a-fA-F]{32}")) {
                System.err.println("beam: '" + clip(actorId) + "' is not an actor id (32 hex characters; `ray list actors` shows them).");
                return 2;
            }
            return run(env, common, new Target(actorId.toLowerCase(), 0, null, err), "logs actor");
        }
    }

    @Command(name = "worker", description = "Print a worker process's stdout (--err: stderr) by pid.")
    static final class WorkerLogs implements Callable<Integer> {
        private final Environment env;
        @Option(names = {"-pid", "--pid"}, required = true, description = "The worker's process id.")
        long pid;
        @Option(names = "--err", description = "Print stderr rather than stdout.")
        boolean err;
        @Mixin
        Common common = new Common();

        WorkerLogs(Environment env) {
            this.env = env;
        }

        @Override
        public Integer call() throws IOException {
            if (pid <= 0) {
                System.err.println("beam: --pid must be a process id (a positive number), not " + pid + ".");
                return 2;
            }
            return run(env, common, new Target(null, pid, null, err), "logs worker");
        }
    }

    /** Which file a form names: an actor's, a worker process's (stdout, or stderr with {@code err}), or a glob's. */
    private record Target(String actorId, long pid, String glob, boolean err) {
    }

    /** One read of the target's file on its node: the last {@code lines}, or what follows {@code offset} (when not -1). */
    private record Ask(Target target, String nodeIp, String nodeId) {
        ObjectNode read(DaemonClient client, int lines, long offset) throws IOException {
            return client.request(rid -> new Request.Logs(rid, target.actorId(), target.pid(), target.glob(), nodeIp, nodeId,
                    target.err(), lines, offset));
        }
    }

    private static int run(Environment env, Common common, Target target, String command) throws IOException {
        if (common.tail == 0 || common.tail < -1 || common.tail > MAX_TAIL) {
            System.err.println("beam: --tail must be 1.." + MAX_TAIL + ", or -1 for the whole file; not " + common.tail + ".");
            return 2;
        }
        if (common.nodeId != null) {
            if (!common.nodeId.matches("[0-9a-fA-F]{56}")) {
                System.err.println("beam: '" + clip(common.nodeId) + "' is not a node id (56 hex characters; `ray list nodes` shows them).");
                return 2;
            }
        }
        Ask ask = new Ask(target, common.nodeIp, common.nodeId != null ? common.nodeId.toLowerCase() : null);
        ObjectNode running = Discovery.find(env, common.daemon.tempDir, command, common.daemon.address);
        if (running == null) return 1;
        try (DaemonClient client = new DaemonClient(Path.of(running.path("socket").asText()), env)) {
            boolean whole = common.tail == -1; // the whole file: read page by page from its start
            ObjectNode first = whole ? ask.read(client, RequestCodec.DEFAULT_LOG_LINES, 0) : ask.read(client, common.tail, -1);
            if (first.has("files")) {
                System.out.print(listing(first, common.nodeId != null));
                return 0;
            }
            System.out.print(first.path("text").asText());
            long offset = first.path("offset").asLong();
            if (first.path("truncated").asBoolean() && common.tail != -1) {
                System.err.println("beam: only the last " + first.path("text").asText().length() / 1024
                        + " KiB of " + first.path("file").asText() + " were read; --tail -1 prints the whole file.");
            }
            while (whole && first.path("truncated").asBoolean()) { // each page bounded by the node
                first = ask.read(client, RequestCodec.DEFAULT_LOG_LINES, offset);
                System.out.print(first.path("text").asText());
                offset = first.path("offset").asLong();
            }
            System.out.flush();
            if (!common.follow) return 0;
            return follow(client, ask, offset, first);
        } catch (IOException e) {
            System.out.flush();
            System.err.println("beam: " + e.getMessage());
            return 1;
        }
    }

    /** Prints what is written from {@code offset} on, until Ctrl-C or its actor dies. */
    private static int follow(DaemonClient client, Ask ask, long offset, JsonNode last) throws IOException {
        while (true) {
            if (last.has("actor_state") && last.path("actor_state").asText().equals("DEAD")) {
                // one more read after the death: what the actor printed while it died
                ObjectNode tail = ask.read(client, RequestCodec.DEFAULT_LOG_LINES, offset);
                System.out.print(tail.path("text").asText());
                System.out.flush();
                System.err.println("beam: actor " + ask.target().actorId() + " is dead"
                        + (tail.hasNonNull("death_message") ? ": " + firstLine(tail.path("death_message").asText()) : "")
                        + "; no more output will come.");
                return 0;
            }
            try {
                Thread.sleep(FOLLOW_INTERVAL_MILLIS);
            } catch (InterruptedException e) {
                return 130;
            }
            last = ask.read(client, RequestCodec.DEFAULT_LOG_LINES, offset);
            if (!last.has("text")) { // a glob that matched one file matches several (or none) now
                System.err.println("beam: " + ask.target().glob() + " matches " + last.path("files").size()
                        + " files now, not one; stopped following.");
                return 1;
            }
            String text = last.path("text").asText();
            if (!text.isEmpty()) {
                System.out.print(text);
                System.out.flush();
            }
            offset = last.path("offset").asLong();
        }
    }

    /** Ray's listing: the node (by id when it was asked by id), then its files by category, as YAML. */
    static String listing(JsonNode reply, boolean byId) {
        Map<String, List<String>> byCategory = new TreeMap<>();
        for (JsonNode f : reply.path("files")) {
            String name = f.path("name").asText();
            String category = name.startsWith("actor-") && name.endsWith(".out") ? "worker_out"
                    : name.startsWith("actor-") && name.endsWith(".err") ? "worker_err"
                    : name.startsWith("beamd") ? "beamd" : "internal";
            byCategory.computeIfAbsent(category, k -> new java.util.ArrayList<>()).add(name);
        }
        StringBuilder sb = new StringBuilder(byId ? "Node ID: " + reply.path("node_id").asText()
                : "Node IP: " + reply.path("node_ip").asText()).append('\n');
        if (byCategory.isEmpty()) sb.append("{}\n");
        for (var e : byCategory.entrySet()) {
            sb.append(e.getKey()).append(":\n");
            for (String name : e.getValue()) sb.append("- ").append(name).append('\n');
        }
        if (reply.path("truncated").asBoolean()) sb.append("# more files match; narrow the glob\n");
        return sb.toString();
    }

    private static String firstLine(String s) {
        for (String line : s.split("\n")) if (line.startsWith("The actor is dead because")) return line;
        return s.split("\n", 2)[0];
    }

    private static String clip(String s) {
        String safe = s.replaceAll("[^\\x20-\\x7e]", "?");
        return safe.length() > 40 ? safe.substring(0, 40) + "..." : safe;
    }
}
