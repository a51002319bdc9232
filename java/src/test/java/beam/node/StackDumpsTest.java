package beam.node;

import static org.assertj.core.api.Assertions.assertThat;

import beam.codec.FrameCodec;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real processes: a Python one registered as stackdump.py registers, and others that cannot dump. */
class StackDumpsTest {
    @TempDir
    Path dir;
    private Process python;
    private Process plain;

    @AfterEach
    void end() {
        for (Process p : new Process[] {python, plain}) if (p != null) p.destroyForcibly();
    }

    private Process registeredPython() throws Exception {
        String code = """
                import faulthandler, os, sys, time
                fd = os.open(os.path.join(sys.argv[1], str(os.getpid())), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
                f = os.fdopen(fd, "w")
                faulthandler.register(40, file=f, all_threads=True, chain=False)
                print("ready", flush=True)
                def wait_here():
                    while True:
                        time.sleep(0.05)
                wait_here()
                """;
        Process p = new ProcessBuilder("python3", "-c", code, dir.toString()).redirectErrorStream(true).start();
        String line = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
        assertThat(line).isEqualTo("ready");
        return p;
    }

    private static JsonNode ask(StackDumps dumps, long pid, String role) throws Exception {
        ObjectNode args = FrameCodec.json().createObjectNode();
        args.putArray("processes").addObject().put("pid", pid).put("role", role);
        return dumps.answer(args).get(10, TimeUnit.SECONDS).path("processes").path(0);
    }

    @Test
    void aRegisteredProcessDumpsEveryThreadAndStaysAlive() throws Exception {
        python = registeredPython();
        StackDumps dumps = new StackDumps(dir, pid -> pid == python.pid());
        JsonNode row = ask(dumps, python.pid(), "actor");
        assertThat(row.path("stack").asText()).contains("in wait_here").contains("most recent call first");
        // asked again, the dump starts afresh: the file was truncated, not appended to
        JsonNode again = ask(dumps, python.pid(), "driver");
        assertThat(again.path("stack").asText().split("Current thread", -1)).hasSize(2);
        assertThat(python.isAlive()).isTrue();
    }

    @Test
    void processesThatCannotDumpAreListedWithWhyAndNotSignalled() throws Exception {
        python = registeredPython();
        plain = new ProcessBuilder("sleep", "30").start();
        StackDumps dumps = new StackDumps(dir, pid -> false);
        assertThat(ask(dumps, python.pid(), "actor").path("error").asText()).isEqualTo("not an actor process this node started");
        assertThat(ask(dumps, plain.pid(), "driver").path("error").asText()).startsWith("registered no stack dump handler");
        Thread.sleep(200);
        assertThat(plain.isAlive()).isTrue(); // signal 40 would have ended it

        new ProcessBuilder("kill", "-STOP", String.valueOf(python.pid())).start().waitFor();
        long started = System.nanoTime();
        assertThat(ask(dumps, python.pid(), "driver").path("error").asText()).startsWith("stopped (T");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(1000);

        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        assertThat(ask(dumps, gone.pid(), "driver").path("error").asText()).isEqualTo("exited");
    }

    @Test
    void tooManyProcessesAreRefusedBeforeAnyIsRead() {
        ObjectNode args = FrameCodec.json().createObjectNode();
        var list = args.putArray("processes");
        for (int i = 0; i <= StackDumps.MAX_PROCESSES; i++) list.addObject().put("pid", i + 1).put("role", "driver");
        assertThat(new StackDumps(dir, pid -> false).answer(args)).isCompletedExceptionally();
    }
}
