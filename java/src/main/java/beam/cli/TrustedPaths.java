package beam.cli;

import beam.daemon.SessionDir;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Only your own files are trusted: a temp dir, session dir, {@code session_latest} link,
 * {@code node.json} or socket that another user owns, or that group or others may write, is
 * refused, since whoever controls it could point every client at a daemon of theirs (which
 * would answer with pickles). The same rule is python/ray/_beam/launch/tempdirs.py's.
 */
final class TrustedPaths {
    private TrustedPaths() {
    }

    static final String FIX = "Use a folder of your own: `--temp-dir DIR` or RAY_TMPDIR=DIR (e.g. RAY_TMPDIR=$HOME/.beam).";

    /** This process's effective uid (the owner of /proc/self). */
    static int myUid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("cannot tell this process's uid from /proc/self: " + e.getMessage());
        }
    }

    /**
     * Why {@code p} ({@code what}: "temp dir", "node.json", ...) is not to be trusted, or null
     * when it is (or does not exist). A link counts as its own file and as its target's.
     */
    static String problem(Path p, String what) {
        int me = myUid();
        try {
            if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) return null;
            int owner = (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            int mode = (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            boolean link = Files.isSymbolicLink(p);
            if (owner != me) {
                return "beam: refusing the " + what + " " + p + ": it belongs to " + ownerName(p, owner) + " (uid " + owner
                        + ", mode " + octal(mode) + ") and beam trusts only files of your own (uid " + me + "). " + FIX;
            }
            if (!link && (mode & 0022) != 0) {
                return "beam: refusing the " + what + " " + p + ": its mode " + octal(mode)
                        + " lets other users write it, so someone else could put a daemon of theirs there. Run `chmod go-w "
                        + p + "`, or: " + FIX;
            }
            if (link && Files.exists(p)) return problem(p.toRealPath(), what + " (the target of " + p + ")");
            return null;
        } catch (IOException | RuntimeException e) {
            return "beam: cannot check the " + what + " " + p + " (" + e.getMessage() + "). " + FIX;
        }
    }

    /**
     * Checks {@code temp} before {@code ray start} makes or uses anything in it, and makes it
     * (mode 0700) when it is missing. Throws with the path, what is wrong and the fix.
     */
    static void prepareForStart(Path temp) throws IOException {
        SessionDir.checkSocketPath(temp);
        String bad = problem(temp, "temp dir");
        if (bad != null) throw new IllegalArgumentException(bad.substring("beam: ".length()));
        if (Files.exists(temp) && !Files.isDirectory(temp)) {
            throw new IllegalArgumentException("the temp dir " + temp + " is a file, not a folder. Pick a folder with --temp-dir "
                    + "(or RAY_TMPDIR).");
        }
        if (!Files.exists(temp)) {
            Path ancestor = temp.getParent();
            while (ancestor != null && !Files.exists(ancestor)) ancestor = ancestor.getParent();
            if (ancestor != null && !Files.isDirectory(ancestor)) {
                throw new IllegalArgumentException("the temp dir " + temp + " cannot be made: " + ancestor
                        + " is a file, not a folder. Pick another --temp-dir (or RAY_TMPDIR).");
            }
            if (ancestor != null && !Files.isWritable(ancestor)) {
                throw new IllegalArgumentException("the temp dir " + temp + " does not exist and cannot be made: " + ancestor
                        + " is not writable by you. Pick another --temp-dir (or RAY_TMPDIR), or create it.");
            }
            SessionDir.createPrivateDirs(temp);
        }
        if (!Files.isWritable(temp)) {
            String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(temp));
            throw new IllegalArgumentException("the temp dir " + temp + " is not writable by you (mode " + mode
                    + (mode.charAt(1) == 'w' ? ", so probably a read-only mount" : "") + "). Run `chmod u+w " + temp
                    + "` or pick another --temp-dir (or RAY_TMPDIR).");
        }
    }

    private static String ownerName(Path p, int uid) {
        try {
            return "user " + Files.getOwner(p, LinkOption.NOFOLLOW_LINKS).getName();
        } catch (IOException | RuntimeException e) {
            return "user " + uid;
        }
    }

    static String octal(int mode) {
        return String.format("%04o", mode & 07777);
    }
}
