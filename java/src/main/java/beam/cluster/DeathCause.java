package beam.cluster;

import java.util.List;

/**
 * Why an actor died, turned into the text of the {@code ActorDiedError} its callers see.
 * The first lines follow Ray's message; the last line says plainly what happened.
 */
public sealed interface DeathCause {
    record Killed() implements DeathCause {
    }

    record ConstructorFailed(String traceback) implements DeathCause {
    }

    record ProcessExited(int exitCode, List<String> stderrTail, long oomKills) implements DeathCause {
    }

    record OwnerExited(String owner) implements DeathCause {
    }

    record GroupRemoved() implements DeathCause {
    }

    record StartFailed(String detail) implements DeathCause {
    }

    record DaemonStopping() implements DeathCause {
    }

    record NodeLost(String ip) implements DeathCause {
    }

    /** It could never be placed: a hard node affinity to a node unknown, dead or too small. */
    record Unschedulable() implements DeathCause {
    }

    /** No handle to it was left anywhere, so the head ended it (Ray's wording for that end). */
    record OutOfScope() implements DeathCause {
    }

    /** The text of the {@code ActorDiedError} the callers of {@code actor} get. */
    static String message(ActorRecord actor, DeathCause cause) {
        return "The actor died unexpectedly before finishing this task.\n"
                + "\tclass_name: " + actor.className + "\n"
                + "\tactor_id: " + actor.id + "\n"
                + "\tpid: " + (actor.pid > 0 ? actor.pid : "(not started)") + "\n"
                + "\tnamespace: " + actor.namespace + "\n"
                + "\tip: " + (actor.node != null ? actor.node.ip : "(not placed)") + "\n"
                + "The actor is dead because " + describe(cause);
    }

    static String describe(DeathCause cause) {
        return switch (cause) {
            case Killed k -> "it was killed by `ray.kill`.";
            case ConstructorFailed c -> "its constructor raised an exception (the creation task failed):\n" + c.traceback();
            case ProcessExited p -> exitText(p.exitCode(), p.oomKills()) + tail(p.stderrTail());
            case OwnerExited o -> "its owner (" + o.owner() + ") exited, and actors share the fate of their owner.";
            case GroupRemoved g -> "its placement group was removed.";
            case StartFailed s -> "its worker process could not be started: " + s.detail();
            case DaemonStopping d -> "the beam daemon on its node is shutting down (`ray stop`).";
            case NodeLost n -> "its node " + n.ip() + " was lost.";
            case OutOfScope o -> "all references to the actor were removed.";
            case Unschedulable u -> "it is not schedulable: " + NodeAffinity.UNSCHEDULABLE;
        };
    }

    String INTENDED_EXIT = "its worker process has died. Worker exit type: INTENDED_USER_EXIT Worker exit detail: "
            + "Worker exits by an user request. Worker exits with an exit code 0. exit_actor() is called.";

    /** Java reports a process killed by signal N as exit code 128+N. */
    static String exitText(int code, long oomKills) {
        if (code > 128 && code < 128 + 65) {
            int signal = code - 128;
            String text = "its worker process was killed by signal " + signal + " (" + signalName(signal) + ")";
            if (signal == 9 && oomKills > 0) {
                text += ". The kernel's OOM killer killed " + oomKills + " process(es) on its node while it ran, so "
                        + "it most likely ran out of memory (see `dmesg`); give it more memory or load less at once";
            } else if (signal == 9) {
                text += " (no OOM kill was recorded on its node, so something killed it on purpose: `kill -9`, "
                        + "a job scheduler, or a container limit)";
            } else if (signal == 11) {
                text += ": a segmentation fault in native code (a C extension, CUDA, or a driver)";
            }
            return text + ".";
        }
        // A worker exits with 0 only on a graceful exit (exit_actor(), __ray_terminate__, sys.exit):
        // Ray's words for it, which callers match on.
        if (code == 0) return INTENDED_EXIT;
        return "its worker process exited with code " + code + ".";
    }

    static String signalName(int signal) {
        return switch (signal) {
            case 1 -> "SIGHUP";
            case 2 -> "SIGINT";
            case 4 -> "SIGILL";
            case 6 -> "SIGABRT";
            case 7 -> "SIGBUS";
            case 8 -> "SIGFPE";
            case 9 -> "SIGKILL";
            case 11 -> "SIGSEGV";
            case 13 -> "SIGPIPE";
            case 15 -> "SIGTERM";
            default -> "signal " + signal;
        };
    }

    private static String tail(List<String> lines) {
        if (lines == null || lines.isEmpty()) return "";
        return "\nLast lines of its stderr:\n    " + String.join("\n    ", lines);
    }
}
