package beam.node;

import static org.assertj.core.api.Assertions.assertThat;

import beam.util.Await;
import beam.util.NodeQuestion.DumpStacks;
import beam.util.NodeQuestion.StackDump;
import beam.util.NodeQuestion.StackTarget;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
        plain = blockingPython();
        StackDumps dumps = new StackDumps(dir, pid -> false);
        assertThat(ask(dumps, python.pid(), "actor").error()).isEqualTo("not an actor process this node started");
        assertThat(ask(dumps, plain.pid(), "driver").error()).startsWith("registered no stack dump handler");
        assertThat(pendingDumpSignal(plain.pid())).as("the process without a handler was signalled").isFalse();

        new ProcessBuilder("kill", "-STOP", String.valueOf(python.pid())).start().waitFor();
        // kill(1) returns once the signal is sent; the kernel stops the process when it next runs
        Await.until(() -> state(python.pid()) == 'T', "pid " + python.pid() + " reads as stopped (T) after kill -STOP");
        // refused before any signal: "stopped", not "did not dump within 3000 ms"
        assertThat(ask(dumps, python.pid(), "driver").error()).startsWith("stopped (T");
        // a stopped process keeps a signal pending until SIGCONT: none pending means none was sent
        assertThat(pendingDumpSignal(python.pid())).as("the stopped process was signalled").isFalse();

        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        assertThat(ask(dumps, gone.pid(), "driver").error()).isEqualTo("exited");
    }

    /** A Python process with no handler for the dump signal that blocks it, so a stray one stays pending. */
    private Process blockingPython() throws Exception {
        String code = "import signal, time\n"
                + "signal.pthread_sigmask(signal.SIG_BLOCK, {" + StackDumps.SIGNAL + "})\n"
                + "print('ready', flush=True)\n"
                + "time.sleep(60)\n";
        Process p = new ProcessBuilder("python3", "-c", code).redirectErrorStream(true).start();
        String line = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
        assertThat(line).isEqualTo("ready");
        return p;
    }

    /** The state letter of /proc/PID/stat (R, S, T, Z...); '?' once it is gone. */
    private static char state(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
            return stat.substring(stat.lastIndexOf(')') + 2).charAt(0);
        } catch (IOException e) {
            return '?';
        }
    }

    private static boolean pendingDumpSignal(long pid) {
        var status = StackDumps.statusFields(Path.of("/proc", String.valueOf(pid), "status"));
        long bit = 1L << (StackDumps.SIGNAL - 1);
        return ((Long.parseUnsignedLong(status.get("ShdPnd"), 16) | Long.parseUnsignedLong(status.get("SigPnd"), 16)) & bit) != 0;
    }

    @Test
    void tooManyProcessesAreRefusedBeforeAnyIsRead() {
        List<StackTarget> targets = new java.util.ArrayList<>();
        for (int i = 0; i <= StackDumps.MAX_PROCESSES; i++) targets.add(new StackTarget(i + 1, false));
        assertThat(new StackDumps(dir, pid -> false).answer(new DumpStacks(targets, 0))).isCompletedExceptionally();
    }
}
