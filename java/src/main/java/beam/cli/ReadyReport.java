package beam.cli;

import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.logging.Logger;

/**
 * What a daemon started with {@code --notify-ready} tells whoever launched it (the Python
 * {@code ray} launcher or {@link StartCommand}'s relay), on its stdout, a pipe.
 *
 * <p>Until the daemon serves, every line it prints is sent on the pipe tagged {@code "OUT "}
 * (its stdout) or {@code "ERR "} (its stderr): notices, errors, the banner. The report ends
 * with the line {@code BEAM-READY}, after which the pipe is closed and stdout goes to the
 * session's {@code beamd.out}, stderr to the daemon's own stderr (a log file). A daemon that
 * exits before {@code BEAM-READY} failed; its exit status is the status of {@code ray start}.
 * The launcher prints each tagged line on its own stdout or stderr, untagged; the text is all
 * the daemon's.
 */
final class ReadyReport {
    static final String OUT = "OUT ";
    static final String ERR = "ERR ";
    static final String READY = "BEAM-READY";

    private static final Logger LOG = Logger.getLogger(ReadyReport.class.getName());
    private static PrintStream pipe;

    private ReadyReport() {
    }

    /** Routes System.out and System.err to the pipe, tagged (before anything is printed). */
    static synchronized void begin() {
        pipe = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(new PrintStream(new TaggedLines(OUT), true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(new TaggedLines(ERR), true, StandardCharsets.UTF_8));
    }

    /**
     * Sends {@code BEAM-READY}, closes the pipe and moves stdout to {@code out}, stderr back to
     * fd 2. {@code out} is opened after the pipe is closed so that it takes fd 1, where the
     * JVM's own output (a SIGQUIT thread dump, -Xlog to stdout) goes. The daemon is serving by
     * then, so a failure to open it (no descriptor left: RLIMIT_NOFILE lowered right after
     * `ray start` returned, tests/e2e/test_accept_limits.py) must not end it: it logs why and
     * drops what the daemon prints to stdout (its log is beamd.log, already open).
     */
    static synchronized void ready(Path out) {
        System.out.flush();
        System.err.flush();
        pipe.println(READY);
        pipe.close();
        pipe = null;
        try {
            System.setOut(new PrintStream(new FileOutputStream(out.toFile()), true, StandardCharsets.UTF_8));
        } catch (IOException e) {
            System.setOut(new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8));
            LOG.warning("could not open " + out + " for the daemon's stdout (" + e.getMessage()
                    + "); serving on without it");
        }
        System.setErr(new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8));
    }

    /** A line-buffered stream that writes each complete line to the pipe with a tag. */
    private static final class TaggedLines extends OutputStream {
        private final byte[] tag;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        TaggedLines(String tag) {
            this.tag = tag.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public void write(int b) {
            synchronized (ReadyReport.class) {
                line.write(b);
                if (b == '\n') emit();
            }
        }

        @Override
        public void write(byte[] b, int off, int len) {
            synchronized (ReadyReport.class) {
                for (int i = off; i < off + len; i++) {
                    line.write(b[i]);
                    if (b[i] == '\n') emit();
                }
            }
        }

        @Override
        public void flush() {
            // complete lines are already out; a partial line waits for its end (a tag per line)
        }

        @Override
        public void close() {
            synchronized (ReadyReport.class) {
                if (line.size() > 0) {
                    line.write('\n');
                    emit();
                }
            }
        }

        private void emit() {
            if (pipe != null) {
                pipe.write(tag, 0, tag.length);
                pipe.write(line.toByteArray(), 0, line.size());
                pipe.flush();
            }
            line.reset();
        }
    }
}
