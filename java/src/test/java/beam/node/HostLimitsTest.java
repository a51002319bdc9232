package beam.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import beam.config.Environment;
import beam.protocol.FactsCodec;
import beam.util.HostFacts.Limits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostLimitsTest {
    private static final List<String> LIMITS = List.of(
            "Limit                     Soft Limit           Hard Limit           Units     ",
            "Max open files            20000                1048576              files     ",
            "Max locked memory         unlimited            unlimited            bytes     ");

    @Test
    void softLimitsComeFromTheProcTable() {
        assertThat(HostLimits.softLimit(LIMITS, "Max open files")).isEqualTo(20000);
        assertThat(HostLimits.softLimit(LIMITS, "Max locked memory")).isEqualTo(HostLimits.UNLIMITED);
        assertThatThrownBy(() -> HostLimits.softLimit(LIMITS, "Max processes")).hasMessageContaining("no \"Max processes\" line");
    }

    @Test
    void readsTheInjectedPathsAndOnlyTheNcclGlooAndVllmVariables(@TempDir Path dir) throws Exception {
        Path limits = dir.resolve("limits");
        Files.write(limits, LIMITS);
        Limits o = HostLimits.read(Environment.of(Map.of(Environment.SHM_PATH, dir.toString(),
                Environment.LIMITS_PATH, limits.toString(), "NCCL_SOCKET_IFNAME", "eth0", "VLLM_HOST_IP", "10.0.0.1",
                "HOME", "/root", "RAY_AUTH_TOKEN", "secret")));
        assertThat(o.shmPath()).isEqualTo(dir.toString());
        assertThat(o.shmBytes()).isEqualTo(Files.getFileStore(dir).getTotalSpace());
        assertThat(o.openFiles()).isEqualTo(20000);
        assertThat(o.lockedMemory()).isEqualTo(-1);
        assertThat(o.env()).containsExactly(Map.entry("NCCL_SOCKET_IFNAME", "eth0"), Map.entry("VLLM_HOST_IP", "10.0.0.1"));
    }

    @Test
    void manyOrLongVariablesAreBoundedSoTheJoinStaysSmall(@TempDir Path dir) {
        Map<String, String> vars = new java.util.HashMap<>();
        for (int i = 0; i < 100; i++) vars.put("NCCL_X%03d".formatted(i), "v".repeat(1000));
        Limits o = HostLimits.read(Environment.of(vars));
        assertThat(o.env()).hasSize(HostLimits.MAX_VARIABLES);
        assertThat(o.env().get("NCCL_X000")).hasSize(HostLimits.MAX_VALUE + 3);
        assertThat(o.envLeftOut()).isEqualTo(100 - HostLimits.MAX_VARIABLES);
        assertThat(FactsCodec.limits(o).toString().length()).isLessThan(8 * 1024);
    }

    @Test
    void aMissingFileIsReportedNotThrown(@TempDir Path dir) {
        Limits o = HostLimits.read(Environment.of(Map.of(Environment.SHM_PATH, dir.resolve("none").toString(),
                Environment.LIMITS_PATH, dir.resolve("none").toString())));
        assertThat(o.shmError()).startsWith("cannot read the size of ");
        assertThat(o.limitsError()).startsWith("cannot read ");
        assertThat(o.openFiles()).isNull();
        assertThat(FactsCodec.limits(o).has("open_files")).isFalse();
    }

    @Test
    void rdmaDevicesAreTheEntriesOfSysClassInfinibandUnderTheDeviceRoot(@TempDir Path root) throws Exception {
        assertThat(HostLimits.rdmaDevices(root)).as("no such folder: no RDMA").isZero();
        Path ib = Files.createDirectories(root.resolve("sys/class/infiniband"));
        assertThat(HostLimits.rdmaDevices(root)).isZero();
        Files.createDirectory(ib.resolve("mlx5_0"));
        Files.createDirectory(ib.resolve("mlx5_1"));
        assertThat(HostLimits.read(Environment.of(Map.of(Environment.DEVICE_ROOT, root.toString())))
                .rdmaDevices()).isEqualTo(2);
    }
}
