package beam.node;

import static org.assertj.core.api.Assertions.assertThat;

import beam.cluster.DeviceTelemetry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sampler against real processes: fake vendor tools written as shell scripts in a temp dir. */
class AcceleratorTelemetryTest {
    @TempDir
    Path dir;
    final List<DeviceTelemetry> sent = new CopyOnWriteArrayList<>();

    private AcceleratorTelemetry sampler(String script, long timeoutMillis) throws IOException {
        Path tool = dir.resolve("nvidia-smi");
        Files.writeString(tool, "#!/bin/sh\n" + script + "\n");
        Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwxr-xr-x"));
        return new AcceleratorTelemetry(new TelemetryTool("nvidia-smi", "GPU", List.of(tool.toString()),
                TelemetryParsers::csv), sent::add, timeoutMillis);
    }

    @Test
    void anAnsweringToolGivesItsDevices() throws IOException {
        AcceleratorTelemetry t = sampler("echo '0, GPU-aa, NVIDIA H200, 35, 1024, 143771'", 5_000);
        t.sample();
        DeviceTelemetry got = t.latest();
        assertThat(got.problem()).isNull();
        assertThat(got.devices()).extracting(DeviceTelemetry.Device::utilizationPercent).containsExactly(35.0);
        assertThat(got.sampledMillis()).isPositive();
        assertThat(sent).containsExactly(got);
    }

    @Test
    void aHungToolIsKilledAtTheTimeoutAndReportedKeepingTheLastGoodDevices() throws Exception {
        Path flag = dir.resolve("hang");
        AcceleratorTelemetry t = sampler("if [ -e " + flag + " ]; then exec sleep 600; fi\n"
                + "echo '0, GPU-aa, NVIDIA H200, 35, 1024, 143771'", 300);
        t.sample();
        Files.writeString(flag, "");
        long start = System.nanoTime();
        t.sample();
        assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(3_000);
        DeviceTelemetry got = t.latest();
        assertThat(got.hung()).isTrue();
        assertThat(got.problem()).isEqualTo("nvidia-smi did not answer in 1 s: a hung nvidia-smi usually means a "
                + "driver or GPU fault");
        assertThat(got.devices()).hasSize(1);
        Thread.sleep(200); // the killed one has exited: the next sample starts (and hangs) again, one at a time
        assertThat(ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).count()).isZero();
    }

    @Test
    void aSampleWhileOneIsInFlightStartsNoSecondTool() throws Exception {
        Path started = dir.resolve("started");
        AcceleratorTelemetry t = sampler("echo x >> " + started + "; exec sleep 600", 2_000);
        Thread first = Thread.ofVirtual().start(t::sample);
        while (!Files.exists(started)) Thread.sleep(10);
        long start = System.nanoTime();
        t.sample();
        assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(500);
        first.join();
        assertThat(Files.readAllLines(started)).hasSize(1);
        assertThat(t.latest().hung()).isTrue();
    }

    @Test
    void aFailingToolIsReportedWithItsExitAndFirstErrorLine() throws IOException {
        AcceleratorTelemetry t = sampler("echo 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA "
                + "driver.' >&2; exit 9", 5_000);
        t.sample();
        assertThat(t.latest().problem()).isEqualTo("nvidia-smi failed (exit 9): NVIDIA-SMI has failed because it could not "
                + "communicate with the NVIDIA driver.");
        assertThat(t.latest().hung()).isFalse();
    }

    @Test
    void outputItCannotReadIsReportedAsSuch() throws IOException {
        AcceleratorTelemetry t = sampler("echo 'GPU 0: NVIDIA H200 (UUID: GPU-aa)'", 5_000);
        t.sample();
        assertThat(t.latest().problem()).startsWith("cannot read what nvidia-smi printed: expected 6 comma-separated fields");
    }

    @Test
    void aToolThatIsNotInstalledEndsSamplingWithoutAProblem() {
        AcceleratorTelemetry t = new AcceleratorTelemetry(new TelemetryTool("nvidia-smi", "GPU",
                List.of(dir.resolve("absent").toString()), TelemetryParsers::csv), sent::add, 5_000);
        t.sample();
        assertThat(t.latest()).isEqualTo(DeviceTelemetry.NONE);
        t.sample();
        assertThat(sent).containsExactly(DeviceTelemetry.NONE);
    }
}
