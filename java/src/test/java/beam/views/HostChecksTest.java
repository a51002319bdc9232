package beam.views;

import static org.assertj.core.api.Assertions.assertThat;

import beam.codec.FrameCodec;
import beam.protocol.FactsCodec;
import beam.util.HostFacts.Limits;
import java.util.List;
import org.junit.jupiter.api.Test;

class HostChecksTest {
    /** The limits a node reports, written as they travel ({@code host_limits}). */
    private static Limits json(String text) throws Exception {
        return FactsCodec.limits(FrameCodec.json().readTree(text));
    }

    private static final String GOOD = """
            {"shm_path": "/dev/shm", "shm_bytes": 17179869184, "open_files": 1048576, "locked_memory": -1,
             "env": {"NCCL_SOCKET_IFNAME": "eth0", "GLOO_SOCKET_IFNAME": "eth0", "VLLM_HOST_IP": "%s"}}""";

    @Test
    void wellSetHostsPassEvenWithTheirOwnVllmHostIp() throws Exception {
        assertThat(HostChecks.check(List.of(
                new HostChecks.Reported("10.0.0.1", json(GOOD.formatted("10.0.0.1"))),
                new HostChecks.Reported("10.0.0.2", json(GOOD.formatted("10.0.0.2")))))).isEqualTo(new HostChecks.Findings(List.of(), List.of()));
    }

    @Test
    void eachBadSettingNamesTheNodeTheValueAndTheFix() throws Exception {
        Limits bad = json("""
                {"shm_path": "/dev/shm", "shm_bytes": 67108864, "open_files": 1024, "locked_memory": 8388608,
                 "rdma_devices": 2,
                 "env": {"NCCL_SOCKET_IFNAME": "lo", "GLOO_SOCKET_IFNAME": "eth0", "VLLM_HOST_IP": "10.9.9.9"}}""");
        HostChecks.Findings found = HostChecks.check(List.of(
                new HostChecks.Reported("10.0.0.1", json(GOOD.formatted("10.0.0.1"))),
                new HostChecks.Reported("10.0.0.2", bad)));
        List<String> problems = found.problems();
        assertThat(problems).hasSize(5);
        assertThat(found.warnings()).isEmpty();
        assertThat(problems.get(0)).startsWith("node 10.0.0.2: /dev/shm is 64 MiB (under 1 GiB)").contains("--shm-size");
        assertThat(problems.get(1)).contains("ulimit -n) is 1024, under 65536").contains("ulimit -n 65536");
        assertThat(problems.get(2)).contains("ulimit -l) is 8 MiB, not unlimited").contains("memlock=-1")
                .endsWith("(this host has 2 RDMA device(s) in /sys/class/infiniband)");
        assertThat(problems.get(3)).contains("VLLM_HOST_IP=10.9.9.9 is not this node's IP")
                .contains("VLLM_HOST_IP=10.0.0.2").contains("--node-ip-address 10.9.9.9");
        assertThat(problems.get(4)).startsWith("NCCL_SOCKET_IFNAME differs between nodes: eth0 on 10.0.0.1; lo on 10.0.0.2");
    }

    @Test
    void aLockedMemoryLimitIsOnlyAWarningOnAHostWithoutRdma() throws Exception {
        Limits noRdma = json("{\"shm_bytes\": 17179869184, \"open_files\": -1, \"locked_memory\": 8388608,"
                + " \"rdma_devices\": 0, \"env\": {}}");
        HostChecks.Findings found = HostChecks.check(List.of(new HostChecks.Reported("10.0.0.3", noRdma)));
        assertThat(found.problems()).isEmpty();
        assertThat(found.warnings()).singleElement().asString()
                .startsWith("node 10.0.0.3: the locked-memory limit (ulimit -l) is 8 MiB, not unlimited")
                .endsWith("(only a warning: this host has no RDMA device in /sys/class/infiniband)");
    }

    @Test
    void aVariableSetOnOneNodeOnlyDiffersAndANodeThatReportedNothingIsSkipped() throws Exception {
        Limits withDebug = json("{\"shm_bytes\": 17179869184, \"open_files\": -1, \"locked_memory\": -1,"
                + " \"env\": {\"NCCL_DEBUG\": \"INFO\"}}");
        Limits without = json("{\"shm_bytes\": 17179869184, \"open_files\": -1, \"locked_memory\": -1, \"env\": {}}");
        List<String> problems = HostChecks.check(List.of(new HostChecks.Reported("a", withDebug),
                new HostChecks.Reported("b", without), new HostChecks.Reported("c", json("{}")))).problems();
        assertThat(problems).containsExactly(problems.get(0));
        assertThat(problems.get(0)).startsWith("NCCL_DEBUG differs between nodes: INFO on a; (unset) on b.");
    }
}
