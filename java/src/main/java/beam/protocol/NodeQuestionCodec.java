package beam.protocol;

import beam.protocol.Request.BadRequest;
import beam.util.NodeQuestion;
import beam.util.NodeQuestion.Answer;
import beam.util.NodeQuestion.DumpStacks;
import beam.util.NodeQuestion.DumpedStacks;
import beam.util.NodeQuestion.ListLogs;
import beam.util.NodeQuestion.LogFile;
import beam.util.NodeQuestion.LogFiles;
import beam.util.NodeQuestion.LogRefused;
import beam.util.NodeQuestion.LogText;
import beam.util.NodeQuestion.Probe;
import beam.util.NodeQuestion.ProbeResult;
import beam.util.NodeQuestion.ProbeResults;
import beam.util.NodeQuestion.ProbeTarget;
import beam.util.NodeQuestion.ReadLog;
import beam.util.NodeQuestion.StackDump;
import beam.util.NodeQuestion.StackTarget;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * The bodies of {@code node_ask} ({@code args}) and {@code node_answer} ({@code result}), one
 * pair per {@link NodeQuestion} kind, as docs/PROTOCOL.md lists them; {@link LinkCodec} writes
 * the frames around them. Reading checks every field and names the one that was wrong.
 */
final class NodeQuestionCodec {
    /** The most targets or processes one question may list. */
    static final int MAX_ITEMS = 4096;
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private NodeQuestionCodec() {
    }

    static JsonNode args(NodeQuestion<?> question) {
        return switch (question) {
            case Probe p -> {
                ArrayNode targets = F.arrayNode();
                for (ProbeTarget t : p.targets()) targets.addObject().put("node_id", t.nodeId()).put("ip", t.ip()).put("port", t.port());
                yield targets;
            }
            case ListLogs l -> F.objectNode().put("glob", l.glob());
            case ReadLog r -> {
                ObjectNode a = F.objectNode().put("stream", r.stream()).put("lines", r.lines());
                if (r.offset() >= 0) a.put("offset", r.offset());
                if (r.file() != null) a.put("file", r.file());
                else if (r.actorId() != null) a.put("actor_id", r.actorId());
                else if (r.pid() > 0) a.put("pid", r.pid());
                yield a;
            }
            case DumpStacks s -> {
                ObjectNode a = F.objectNode();
                ArrayNode list = a.putArray("processes");
                for (StackTarget t : s.processes()) list.addObject().put("pid", t.pid()).put("role", t.actor() ? "actor" : "driver");
                yield a.put("wait_ms", s.waitMillis());
            }
        };
    }

    /** The kind of question {@code answer} answers (node_answer names it: the head reads the result by it). */
    static String kind(Answer answer) {
        return switch (answer) {
            case ProbeResults p -> Probe.KIND;
            case LogFiles l -> ListLogs.KIND;
            case LogText t -> ReadLog.KIND;
            case LogRefused r -> ReadLog.KIND;
            case DumpedStacks d -> DumpStacks.KIND;
        };
    }

    static JsonNode result(Answer answer) {
        return switch (answer) {
            case ProbeResults p -> {
                ArrayNode rows = F.arrayNode();
                for (ProbeResult r : p.results()) {
                    ObjectNode row = rows.addObject().put("node_id", r.nodeId()).put("address", r.address()).put("ok", r.ok());
                    if (r.millis() != null) row.put("ms", r.millis());
                    if (r.error() != null) row.put("error", r.error());
                }
                yield rows;
            }
            case LogFiles l -> {
                if (l.error() != null) yield F.objectNode().put("error", l.error());
                ObjectNode out = F.objectNode();
                ArrayNode files = out.putArray("files");
                for (LogFile f : l.files()) files.addObject().put("name", f.name()).put("size", f.size());
                yield out.put("truncated", l.truncated());
            }
            case LogText t -> F.objectNode().put("file", t.file()).put("text", t.text()).put("offset", t.offset())
                    .put("truncated", t.truncated());
            case LogRefused r -> F.objectNode().put("error", r.message());
            case DumpedStacks d -> {
                ObjectNode out = F.objectNode();
                ArrayNode rows = out.putArray("processes");
                for (StackDump s : d.processes()) {
                    ObjectNode row = rows.addObject().put("pid", s.pid());
                    if (s.stack() != null) row.put("stack", s.stack());
                    else row.put("error", s.error());
                }
                yield out;
            }
        };
    }

    /** The question of {@code kind}, or null for a kind this beam does not know. */
    static NodeQuestion<?> question(String kind, JsonNode args) throws BadRequest {
        String where = "node_ask " + kind;
        return switch (kind) {
            case Probe.KIND -> {
                List<ProbeTarget> targets = new ArrayList<>();
                for (JsonNode t : list(args, where)) {
                    Fields f = fields(t, where + " target");
                    targets.add(new ProbeTarget(f.text("node_id"), f.text("ip"), f.integer("port")));
                }
                yield new Probe(targets);
            }
            case ListLogs.KIND -> new ListLogs(fields(args, where).text("glob"));
            case ReadLog.KIND -> {
                Fields f = fields(args, where);
                yield new ReadLog(f.optText("stream") == null ? "out" : f.optText("stream"), (int) Math.min(Integer.MAX_VALUE, Math.max(1, f.optLong("lines", 1_000))),
                        f.optLong("offset", -1), f.optText("file"), f.optText("actor_id"), f.optLong("pid", 0));
            }
            case DumpStacks.KIND -> {
                Fields f = fields(args, where);
                List<StackTarget> targets = new ArrayList<>();
                for (JsonNode p : list(f.array("processes"), where + " processes")) {
                    Fields pf = fields(p, where + " process");
                    targets.add(new StackTarget(pf.longInteger("pid"), "actor".equals(pf.text("role"))));
                }
                yield new DumpStacks(targets, f.optLong("wait_ms", DumpStacks.MAX_WAIT_MILLIS));
            }
            default -> null;
        };
    }

    /** The answer to a question of {@code kind}. */
    static Answer answer(String kind, JsonNode result) throws BadRequest {
        String where = "node_answer " + kind;
        switch (kind) {
            case Probe.KIND -> {
                List<ProbeResult> rows = new ArrayList<>();
                for (JsonNode r : list(result, where)) {
                    Fields f = fields(r, where + " result");
                    rows.add(new ProbeResult(f.text("node_id"), f.text("address"), f.optBool("ok", false),
                            r.path("ms").isNumber() ? r.get("ms").asDouble() : null, f.optText("error")));
                }
                return new ProbeResults(rows);
            }
            case ListLogs.KIND -> {
                Fields f = fields(result, where);
                if (f.optText("error") != null) return new LogFiles(List.of(), false, f.optText("error"));
                List<LogFile> files = new ArrayList<>();
                for (JsonNode file : list(f.array("files"), where + " files")) {
                    Fields ff = fields(file, where + " file");
                    files.add(new LogFile(ff.text("name"), ff.longInteger("size")));
                }
                return new LogFiles(files, f.optBool("truncated", false), null);
            }
            case ReadLog.KIND -> {
                Fields f = fields(result, where);
                if (f.optText("error") != null) return new LogRefused(f.optText("error"));
                return new LogText(f.text("file"), f.text("text"), f.longInteger("offset"), f.optBool("truncated", false));
            }
            case DumpStacks.KIND -> {
                List<StackDump> dumps = new ArrayList<>();
                for (JsonNode d : list(fields(result, where).array("processes"), where + " processes")) {
                    Fields f = fields(d, where + " process");
                    String stack = f.optText("stack");
                    dumps.add(new StackDump(f.longInteger("pid"), stack, stack == null ? f.text("error") : null));
                }
                return new DumpedStacks(dumps);
            }
            default -> throw new BadRequest(-1, "node_answer: unknown kind '" + Request.clip(kind) + "'");
        }
    }

    private static Fields fields(JsonNode node, String where) throws BadRequest {
        if (!(node instanceof ObjectNode o)) throw new BadRequest(-1, where + ": expected an object");
        return new Fields(o, where);
    }

    private static JsonNode list(JsonNode node, String where) throws BadRequest {
        if (node == null || !node.isArray()) throw new BadRequest(-1, where + ": expected a list");
        if (node.size() > MAX_ITEMS) throw new BadRequest(-1, where + ": more than " + MAX_ITEMS + " items");
        return node;
    }
}
