package beam.views;

import static org.assertj.core.api.Assertions.assertThat;

import beam.cluster.GroupSnapshot;
import beam.cluster.GroupState;
import beam.cluster.Resources;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Ray's scheduling_state of a group, from the domain's state and its infeasible flag. */
class GroupStatsTest {
    private static String schedulingState(GroupState state, boolean infeasible) {
        GroupSnapshot g = new GroupSnapshot("ab".repeat(9), "", "PACK", state, List.of(new Resources().set("GPU", Resources.UNIT)),
                java.util.Collections.singletonList(null), 0, 1, null, 0, infeasible);
        return GroupViews.stats(g).get("scheduling_state").asText();
    }

    @Test
    void aGroupNoNodeCouldHoldIsInfeasibleABusyOneHasNoResourcesAPlacedOneIsFinished() {
        assertThat(schedulingState(GroupState.PENDING, true)).isEqualTo("INFEASIBLE");
        assertThat(schedulingState(GroupState.PENDING, false)).isEqualTo("NO_RESOURCES");
        assertThat(schedulingState(GroupState.RESCHEDULING, false)).isEqualTo("NO_RESOURCES");
        assertThat(schedulingState(GroupState.CREATED, false)).isEqualTo("FINISHED");
        assertThat(schedulingState(GroupState.REMOVED, false)).isEqualTo("REMOVED");
    }
}
