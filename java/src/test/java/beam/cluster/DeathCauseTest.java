package beam.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The wording of a worker's exit in the ActorDiedError its callers see. */
class DeathCauseTest {
    @Test
    void exitCodeZeroIsRaysIntendedUserExit() {
        String text = DeathCause.describe(new DeathCause.ProcessExited(0, List.of(), 0));
        assertThat(text).contains("Worker exit type: INTENDED_USER_EXIT").contains("exit_actor() is called.");
    }

    @Test
    void otherCodesAndSignalsAreNotCalledIntended() {
        assertThat(DeathCause.describe(new DeathCause.ProcessExited(3, List.of(), 0)))
                .startsWith("The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR "
                        + "Worker exit detail: Worker unexpectedly exits with a connection error code 2.")
                .endsWith("\nIts worker process exited with code 3.");
        assertThat(DeathCause.describe(new DeathCause.ProcessExited(137, List.of("boom"), 0)))
                .startsWith("The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR")
                .contains("\nIts worker process was killed by signal 9 (SIGKILL)")
                .endsWith("Last lines of its stderr:\n    boom").doesNotContain("INTENDED");
    }

    @Test
    void ownerAndNodeDeathsAreWordedAsRay() {
        assertThat(DeathCause.describe(new DeathCause.OwnerExited("driver pid 7", true, "02000000")))
                .isEqualTo("The actor is dead because its owner has died. Owner Id: 02000000" + "f".repeat(48)
                        + " Owner worker exit type: INTENDED_USER_EXIT Worker exit detail: Owner's worker process has "
                        + "crashed.\nIts owner (driver pid 7) exited, and actors share the fate of their owner.");
        assertThat(DeathCause.describe(new DeathCause.NodeLost("ab12", "10.0.0.2", "it sent no heartbeat")))
                .isEqualTo("The actor died because its node has died. Node Id: ab12\n\tthe actor's node was terminated "
                        + "unexpectedly: its node 10.0.0.2 was lost (it sent no heartbeat).");
        assertThat(DeathCause.describe(new DeathCause.Killed())).isEqualTo("The actor is dead because it was killed by `ray.kill`.");
    }
}
