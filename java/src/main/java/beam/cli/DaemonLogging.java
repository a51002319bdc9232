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

/** One-line java.util.logging to the session's beamd.log (and stderr in the foreground). */
final class DaemonLogging {
    private DaemonLogging() {
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
    }
}
