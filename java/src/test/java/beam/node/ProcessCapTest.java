package beam.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The per-node cap on actor processes: a default this host can hold, or the flag's value. */
class ProcessCapTest {
    @Test
    void theDefaultFollowsMemoryAndPidsAndNamesWhereItCameFrom() {
        ProcessCap cap = ProcessCap.of(0);
        long byMemory = ProcessCap.memoryBytes() / ProcessCap.BYTES_PER_PROCESS;
        long byPids = ProcessCap.pidLimit() / ProcessCap.TASKS_PER_PROCESS;
        assertThat((long) cap.limit()).isEqualTo(Math.max(1, Math.min(byMemory, byPids)));
        assertThat(cap.refusal(cap.limit())).contains("already runs " + cap.limit()).contains("default for this host")
                .contains("--max-actor-processes");
    }

    @Test
    void theFlagWinsAndMustBePositive() {
        assertThat(ProcessCap.of(7).limit()).isEqualTo(7);
        assertThat(ProcessCap.of(7).refusal(7)).contains("--max-actor-processes 7");
        assertThatThrownBy(() -> new ProcessCap(0, "x")).hasMessageContaining("--max-actor-processes");
    }
}
