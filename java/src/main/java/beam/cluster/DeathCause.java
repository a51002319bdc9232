package beam.cluster;

import java.util.List;

/**
 * Why an actor died, turned into the text of the {@code ActorDiedError} its callers see.
 * Ray 2.60's words for each cause come first (callers match on them); beam's plain account
 * of what happened (exit code, signal, OOM, stderr tail) follows on lines of its own.
 */
public sealed interface DeathCause {
    record Killed() implements DeathCause {
    }

    record ConstructorFailed(String traceback) implements DeathCause {
    }

    record ProcessExited(int exitCode, List<String> stderrTail, long oomKills) implements DeathCause {
    }

    /** @param driver the owner was a driver (else an actor's worker); @param ownerId its job id or actor id */
    record OwnerExited(String owner, boolean driver, String ownerId) implements DeathCause {
    }

    record GroupRemoved() implements DeathCause {
    }

    record StartFailed(String detail) implements DeathCause {
    }

    record DaemonStopping() implements DeathCause {
    }

    record NodeLost(String nodeId, String ip, String reason) implements DeathCause {
    }

    /** It could never be placed: a hard node affinity to a node unknown, dead or too small. */
    record Unschedulable() implements DeathCause {
    }

    /** No handle to it was left anywhere, so the head ended it (Ray's wording for that end). */
    record OutOfScope() implements DeathCause {
    }

    /**
     * The text of the {@code ActorDiedError} the callers of {@code actor} get: Ray 2.60's
     * header (optional lines left out as Ray leaves them), Ray's sentence for the cause, then
     * on a line of its own what beam knows beyond it (exit code, signal, OOM, stderr tail).
     */
    static String message(ActorRecord actor, DeathCause cause) {
        StringBuilder m = new StringBuilder("The actor died unexpectedly before finishing this task.\n");
        m.append("\tclass_name: ").append(actor.className).append("\n\tactor_id: ").append(actor.id).append('\n');
        if (actor.pid > 0) m.append("\tpid: ").append(actor.pid).append('\n');
        if (actor.name != null) m.append("\tname: ").append(actor.name).append('\n');
        m.append("\tnamespace: ").append(actor.namespace).append('\n');
        if (actor.node != null) m.append("\tip: ").append(actor.node.ip).append('\n');
        m.append(switch (cause) {
            case GroupRemoved g -> "The actor is dead because " + WORKER_DIED + "INTENDED_SYSTEM_EXIT Worker exit detail: "
                    + "Destroying worker since its placement group was removed. Placement group id: "
                    + (actor.group != null ? actor.group.id : "") + ", bundle index: " + actor.options.bundleIndex()
                    + ", actor id: " + actor.id;
            case DaemonStopping d -> "The actor died because its node has died. Node Id: " + (actor.node != null ? actor.node.id : "")
                    + "\n\tthe actor's node was terminated expectedly: " + describe(d);
            default -> "";
        });
        return m.append(describe(cause)).toString();
    }

    /** The owner's death as Ray words it: a driver's worker id is its job id padded with f (beam has no worker ids). */
    static OwnerExited ownerExited(Client owner) {
        return new OwnerExited(owner.describe(), owner.isDriver(), owner.jobId());
    }

    /** Ray's words for a worker process that died, up to its exit type. */
    String WORKER_DIED = "its worker process has died. Worker exit type: ";

    /** Ray's detail for a worker that died unexpectedly (Ray sees only its socket close). */
    String SYSTEM_ERROR = WORKER_DIED + "SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection "
            + "error code 2. End of file. Some common causes include: (1) the process was killed by the OOM killer due "
            + "to high memory usage, (2) ray stop --force was called, or (3) the worker crashed unexpectedly due to "
            + "SIGSEGV or another unexpected error. If the process was killed by the kernel OOM killer (verifiable by "
            + "checking for OOM in dmesg of the OOMing node), consider enabling resource isolation via "
            + "--enable-resource-isolation to prevent node deaths by resource contention and significant loss of "
            + "progress by uninformed kernel OOM killing.";

    /** The cause as Ray words it, then beam's own detail (GroupRemoved and DaemonStopping: their detail only). */
    static String describe(DeathCause cause) {
        return switch (cause) {
            case Killed k -> "The actor is dead because it was killed by `ray.kill`.";
            case ConstructorFailed c -> "The actor is dead because its constructor raised an exception (the creation "
                    + "task failed):\n" + c.traceback();
            case ProcessExited p when p.exitCode() == 0 -> "The actor is dead because " + INTENDED_EXIT;
            case ProcessExited p -> "The actor is dead because " + SYSTEM_ERROR + "\n"
                    + exitText(p.exitCode(), p.oomKills()) + tail(p.stderrTail());
            case OwnerExited o -> "The actor is dead because its owner has died. Owner Id: "
                    + (o.ownerId() + "f".repeat(56)).substring(0, 56) + " Owner worker exit type: "
                    + (o.driver() ? "INTENDED_USER_EXIT" : "INTENDED_SYSTEM_EXIT")
                    + " Worker exit detail: Owner's worker process has crashed.\n"
                    + "Its owner (" + o.owner() + ") exited, and actors share the fate of their owner.";
            case GroupRemoved g -> "";
            case StartFailed s -> "The actor is dead because its worker process could not be started: " + s.detail();
            case DaemonStopping d -> "the beam daemon on its node is shutting down (`ray stop`).";
            case NodeLost n -> "The actor died because its node has died. Node Id: " + n.nodeId()
                    + "\n\tthe actor's node was terminated unexpectedly: its node " + n.ip() + " was lost (" + n.reason() + ").";
            case OutOfScope o -> "The actor is dead because all references to the actor were removed.";
            case Unschedulable u -> "The actor is dead because it is not schedulable: " + NodeAffinity.UNSCHEDULABLE;
        };
    }

    String INTENDED_EXIT = WORKER_DIED + "INTENDED_USER_EXIT Worker exit detail: "
            + "Worker exits by an user request. Worker exits with an exit code 0. exit_actor() is called.";

    /** Java reports a process killed by signal N as exit code 128+N. */
    static String exitText(int code, long oomKills) {
        if (code > 128 && code < 128 + 65) {
            int signal = code - 128;
            String text = "Its worker process was killed by signal " + signal + " (" + signalName(signal) + ")";
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
        return "Its worker process exited with code " + code + ".";
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
