package beam.node;

import static org.assertj.core.api.Assertions.assertThat;

import beam.util.NodeQuestion.DumpStacks;
import beam.util.NodeQuestion.StackDump;
import beam.util.NodeQuestion.StackTarget;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
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

    private static StackDump ask(StackDumps dumps, long pid, String role) throws Exception {
        var question = new DumpStacks(List.of(new StackTarget(pid, role.equals("actor"))), DumpStacks.MAX_WAIT_MILLIS);
        return dumps.answer(question).get(10, TimeUnit.SECONDS).processes().getFirst();
    }

    @Test
    void aRegisteredProcessDumpsEveryThreadAndStaysAlive() throws Exception {
        python = registeredPython();
        StackDumps dumps = new StackDumps(dir, pid -> pid == python.pid());
        StackDump row = ask(dumps, python.pid(), "actor");
        assertThat(row.stack()).contains("in wait_here").contains("most recent call first");
        // asked again, the dump starts afresh: the file was truncated, not appended to
        StackDump again = ask(dumps, python.pid(), "driver");
        assertThat(again.stack().split("Current thread", -1)).hasSize(2);
        assertThat(python.isAlive()).isTrue();
    }

    @Test
    void processesThatCannotDumpAreListedWithWhyAndNotSignalled() throws Exception {
        python = registeredPython();
        plain = new ProcessBuilder("sleep", "30").start();
        StackDumps dumps = new StackDumps(dir, pid -> false);
        assertThat(ask(dumps, python.pid(), "actor").error()).isEqualTo("not an actor process this node started");
        assertThat(ask(dumps, plain.pid(), "driver").error()).startsWith("registered no stack dump handler");
        Thread.sleep(200);
        assertThat(plain.isAlive()).isTrue(); // signal 40 would have ended it

        new ProcessBuilder("kill", "-STOP", String.valueOf(python.pid())).start().waitFor();
        awaitStopped(python.pid()); // the stop takes effect when the process is next scheduled
        // refused before any signal: "stopped", not "did not dump within 3000 ms"
        assertThat(ask(dumps, python.pid(), "driver").error()).startsWith("stopped (T");

        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        assertThat(ask(dumps, gone.pid(), "driver").error()).isEqualTo("exited");
    }

    private static void awaitStopped(long pid) throws Exception {
        Path status = Path.of("/proc", String.valueOf(pid), "status");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!java.nio.file.Files.readString(status).contains("State:\tT")) {
            assertThat(System.nanoTime()).as("process %d never showed State T after SIGSTOP", pid).isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    @Test
    void tooManyProcessesAreRefusedBeforeAnyIsRead() {
        List<StackTarget> targets = new java.util.ArrayList<>();
        for (int i = 0; i <= StackDumps.MAX_PROCESSES; i++) targets.add(new StackTarget(i + 1, false));
        assertThat(new StackDumps(dir, pid -> false).answer(new DumpStacks(targets, 0))).isCompletedExceptionally();
    }
}
