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
                .isEqualTo("its worker process exited with code 3.");
        assertThat(DeathCause.describe(new DeathCause.ProcessExited(137, List.of(), 0)))
                .startsWith("its worker process was killed by signal 9 (SIGKILL)").doesNotContain("INTENDED");
    }
}
