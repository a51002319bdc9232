package beam.cli;

import beam.config.Environment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;

/**
 * Where sessions live, the one rule of the Java side (docs/DESIGN.md, "Where sessions live";
 * the same rule is python/ray/_beam/launch/tempdirs.py and set_temp_root in python/bin/ray, and
 * tests/golden/discovery_cases.json holds all three to it):
 *
 * <ol>
 *   <li>{@code --temp-dir DIR}: DIR;
 *   <li>else {@code $RAY_TMPDIR}: that folder itself (beam's sessions go right in it);
 *   <li>else {@code <parent>/ray}, parent being {@code $TMPDIR} (as Ray on Linux) or /tmp;
 *       when that folder exists and belongs to another user, {@code <parent>/ray-<uid>}
 *       instead, so that a second user of a shared machine gets a folder of their own
 *       rather than a refusal or, worse, somebody else's daemon.
 * </ol>
 * Relative paths are taken against the working directory. A folder named by the flag or
 * RAY_TMPDIR is "chosen": clients look only there.
 */
final class Paths {
    private Paths() {
    }

    static final String DEFAULT_PARENT = "/tmp";
    static final String SHARED_NAME = "ray";

    /** The temp dir for this process, with {@code flag} the {@code --temp-dir} given (or null). */
    static Path tempDir(String flag, Environment env) {
        return tempDir(flag, env.vars(), Path.of("").toAbsolutePath(), TrustedPaths.myUid());
    }

    /** The rule itself, for any process: its flag, environment, working directory and uid. */
    static Path tempDir(String flag, Map<String, String> env, Path cwd, int uid) {
        String named = chosenName(flag, env);
        if (named != null) return cwd.resolve(named).normalize();
        String tmpdir = env.get(Environment.TMPDIR);
        Path parent = blank(tmpdir) ? Path.of(DEFAULT_PARENT) : cwd.resolve(tmpdir).normalize();
        Path shared = parent.resolve(SHARED_NAME);
        return ownedByOther(shared, uid) ? parent.resolve(SHARED_NAME + "-" + uid) : shared;
    }

    /** Whether the user chose the folder (the flag or RAY_TMPDIR) rather than leaving it to the default. */
    static boolean chosen(String flag, Environment env) {
        return chosenName(flag, env.vars()) != null;
    }

    private static String chosenName(String flag, Map<String, String> env) {
        if (!blank(flag)) return flag;
        String env1 = env.get(Environment.RAY_TMPDIR);
        return blank(env1) ? null : env1;
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }

    private static boolean ownedByOther(Path p, int uid) {
        try {
            return ((Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS)) != uid;
        } catch (IOException | RuntimeException e) {
            return false; // absent (or unreadable: then the trust check explains)
        }
    }
}
