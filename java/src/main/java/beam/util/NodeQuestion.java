package beam.util;

import java.util.List;

/**
 * A question the head asks one node, and its typed answer: one record pair per kind. The
 * head's own node answers in process, a joined node over its link (node_ask / node_answer,
 * written by protocol/NodeQuestionCodec); node/NodeAnswers answers each kind by an exhaustive
 * switch, so a new kind is one record pair here and the compiler's list of places. It lives
 * in util/ because the domain (cluster/NodeControl), the link codec below it and the node above
 * it all name it. An answer must be bounded: it travels in one frame header.
 *
 * @param <A> the answer's type
 */
public sealed interface NodeQuestion<A extends NodeQuestion.Answer> {
    /** The kind's name on the wire ({@code node_ask}'s {@code kind}). */
    String kind();

    /** The type of this question's answer, for checking what came back. */
    Class<A> answerType();

    /** What a node answers; one record (or sealed family) per question kind. */
    sealed interface Answer {
    }

    // ------------------------------------------------------------------ probe (ray doctor)

    /** Connect to each target's probe port, as NCCL and Gloo will (link/Prober). */
    record Probe(List<ProbeTarget> targets) implements NodeQuestion<ProbeResults> {
        public static final String KIND = "probe";

        public Probe {
            targets = List.copyOf(targets);
        }

        public String kind() {
            return KIND;
        }

        public Class<ProbeResults> answerType() {
            return ProbeResults.class;
        }
    }

    /** {@code port} is -1 when the target node has no probe port. */
    record ProbeTarget(String nodeId, String ip, int port) {
    }

    record ProbeResults(List<ProbeResult> results) implements Answer {
        public ProbeResults {
            results = List.copyOf(results);
        }
    }

    /** {@code millis}: the connect time, null when it failed; {@code error}: why it failed, null when ok. */
    record ProbeResult(String nodeId, String address, boolean ok, Double millis, String error) {
    }

    // ------------------------------------------------------------------ logs (ray logs, node/NodeLogs)

    /** The log files whose names match {@code glob}. */
    record ListLogs(String glob) implements NodeQuestion<LogFiles> {
        public static final String KIND = "log_files";

        public String kind() {
            return KIND;
        }

        public Class<LogFiles> answerType() {
            return LogFiles.class;
        }
    }

    /** {@code error}: why the folder could not be listed (then {@code files} is empty). */
    record LogFiles(List<LogFile> files, boolean truncated, String error) implements Answer {
        public LogFiles {
            files = List.copyOf(files);
        }
    }

    record LogFile(String name, long size) {
    }

    /**
     * Read one log file: named by {@code file}, else the worker of {@code actorId}, else of
     * {@code pid} (&gt; 0); {@code stream} is "out" or "err". {@code offset} &ge; 0: what was
     * written after it (follow), else the last {@code lines} lines.
     */
    record ReadLog(String stream, int lines, long offset, String file, String actorId, long pid)
            implements NodeQuestion<LogRead> {
        public static final String KIND = "logs";

        public String kind() {
            return KIND;
        }

        public Class<LogRead> answerType() {
            return LogRead.class;
        }
    }

    /** A read's answer: the text, or why there is none. */
    sealed interface LogRead extends Answer {
    }

    /** {@code offset}: where the text ends in the file, to follow from. */
    record LogText(String file, String text, long offset, boolean truncated) implements LogRead {
    }

    /** No text: {@code message} says why ("no ..." when there is no such file). */
    record LogRefused(String message) implements LogRead {
    }

    // ------------------------------------------------------------------ stack (ray stack, node/StackDumps)

    /** Dump the Python stack of each process, waiting at most {@code waitMillis} for them. */
    record DumpStacks(List<StackTarget> processes, long waitMillis) implements NodeQuestion<DumpedStacks> {
        public static final String KIND = "stack";
        /** The longest a node waits for the dumps (and the wait when the head names none). */
        public static final long MAX_WAIT_MILLIS = 3000;

        public DumpStacks {
            processes = List.copyOf(processes);
        }

        public String kind() {
            return KIND;
        }

        public Class<DumpedStacks> answerType() {
            return DumpedStacks.class;
        }
    }

    /** {@code actor}: an actor process this node started, else a driver. */
    record StackTarget(long pid, boolean actor) {
    }

    /** One dump per asked process, in the order asked. */
    record DumpedStacks(List<StackDump> processes) implements Answer {
        public DumpedStacks {
            processes = List.copyOf(processes);
        }
    }

    /** Exactly one of {@code stack} and {@code error} is set. */
    record StackDump(long pid, String stack, String error) {
    }
}
