package beam.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.logging.ConsoleHandler;
import java.util.logging.FileHandler;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * One-line java.util.logging to the session's beamd.log (and stderr in the foreground).
 *
 * <p>The JDK's LogManager closes every handler in a shutdown hook of its own, which races
 * with the daemon's shutdown hook: the daemon's last lines hit a closed handler and each
 * printed a NullPointerException to stderr. {@link KeepHandlersAtExit} (installed by
 * {@link Main} before any logger exists) ignores that reset once logging is configured, and
 * {@link #close()} closes the handlers after the daemon's last line.
 */
final class DaemonLogging {
    private DaemonLogging() {
    }

    /** The LogManager for the {@code ray} JVMs: no reset at exit once logging is set up. */
    public static final class KeepHandlersAtExit extends LogManager {
        private static volatile boolean configured;

        @Override
        public void reset() {
            if (!configured) super.reset();
        }
    }

    /** Closes the handlers (after the daemon's last log line). */
    static void close() {
        for (Handler h : Logger.getLogger("").getHandlers()) h.close();
    }

    static void configure(Path file, boolean alsoStderr) throws IOException {
        System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tF %1$tT.%1$tL %4$s %3$s: %5$s%6$s%n");
        LogManager.getLogManager().reset();
        Logger root = Logger.getLogger("");
        root.setLevel(Level.INFO);
        Handler fileHandler = new FileHandler(file.toString(), true);
        fileHandler.setFormatter(new SimpleFormatter());
        root.addHandler(fileHandler);
        if (alsoStderr) {
            Handler console = new ConsoleHandler();
            console.setFormatter(new SimpleFormatter());
            root.addHandler(console);
        }
        KeepHandlersAtExit.configured = true;
    }
}
