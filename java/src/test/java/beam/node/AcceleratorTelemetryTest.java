package beam.node;

import static org.assertj.core.api.Assertions.assertThat;

import beam.util.Await;
import beam.util.DeviceTelemetry;
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
        // killed at its timeout, not waited out: the hung tool sleeps 600 s (bound generous for a loaded machine)
        assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(60_000);
        DeviceTelemetry got = t.latest();
        assertThat(got.hung()).isTrue();
        assertThat(got.problem()).isEqualTo("nvidia-smi did not answer in 1 s: a hung nvidia-smi usually means a "
                + "driver or GPU fault");
        assertThat(got.devices()).hasSize(1);
        // the killed one exits: none is left behind (the next sample starts one again, one at a time)
        Await.until(() -> ProcessHandle.current().descendants().noneMatch(ProcessHandle::isAlive),
                "the killed nvidia-smi exited");
    }

    @Test
    void aSampleWhileOneIsInFlightStartsNoSecondTool() throws Exception {
        Path started = dir.resolve("started");
        AcceleratorTelemetry t = sampler("echo x >> " + started + "; exec sleep 600", 5_000);
        Thread first = Thread.ofVirtual().start(t::sample);
        Await.until(() -> Files.exists(started), "the first sample started its tool");
        t.sample();
        // returned while the first still waits on its hung tool: it did not wait its turn
        assertThat(first.isAlive()).as("the second sample waited for the first").isTrue();
        first.join();
        assertThat(Files.readAllLines(started)).hasSize(1);
        assertThat(t.latest().hung()).isTrue();
    }

    /** A process as one stuck in the driver is: it never answers and a kill does not end it. */
    static final class Unkillable extends Process {
        final java.util.concurrent.CountDownLatch exited = new java.util.concurrent.CountDownLatch(1);
        int kills;

        @Override public java.io.OutputStream getOutputStream() { return java.io.OutputStream.nullOutputStream(); }
        @Override public java.io.InputStream getInputStream() { return java.io.InputStream.nullInputStream(); }
        @Override public java.io.InputStream getErrorStream() { return java.io.InputStream.nullInputStream(); }
        @Override public int waitFor() throws InterruptedException { exited.await(); return 137; }
        @Override public boolean waitFor(long t, java.util.concurrent.TimeUnit u) throws InterruptedException {
            return exited.await(t, u);
        }
        @Override public int exitValue() {
            if (exited.getCount() > 0) throw new IllegalThreadStateException("running");
            return 137;
        }
        @Override public void destroy() { kills++; }
        @Override public Process destroyForcibly() { kills++; return this; }
        @Override public boolean isAlive() { return exited.getCount() > 0; }
        @Override public long pid() { return 4242; }
        @Override public java.util.stream.Stream<ProcessHandle> descendants() { return java.util.stream.Stream.empty(); }
        @Override public java.util.concurrent.CompletableFuture<Process> onExit() {
            return java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    exited.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return this;
            });
        }
    }

    @Test
    void aKilledToolThatDoesNotExitHoldsBackEverySampleAndSaysSo() {
        List<Unkillable> started = new CopyOnWriteArrayList<>();
        AcceleratorTelemetry t = new AcceleratorTelemetry(new TelemetryTool("nvidia-smi", "GPU", List.of("nvidia-smi"),
                TelemetryParsers::csv), sent::add, 200, command -> {
            Unkillable p = new Unkillable();
            started.add(p);
            return p;
        });
        t.sample();
        assertThat(started).hasSize(1);
        assertThat(started.get(0).kills).isPositive();
        t.sample();
        t.sample();
        assertThat(started).hasSize(1); // no second one while the first lives
        assertThat(t.latest().hung()).isTrue();
        assertThat(t.latest().problem()).isEqualTo("nvidia-smi (pid 4242) did not answer in 1 s and has not exited "
                + "after it was killed: a hung nvidia-smi usually means a driver or GPU fault; no new sample is started "
                + "until it exits");
        started.get(0).exited.countDown();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (started.size() == 1 && System.nanoTime() < deadline) t.sample(); // once it is gone, sampling resumes
        assertThat(started).hasSize(2);
        started.forEach(p -> p.exited.countDown()); // frees the pool thread the second one's onExit waits on
    }

    @Test
    void aNodeStartedWithSomeDevicesVisibleKeepsOnlyThoseByIndexOrUuid() throws Exception {
        var accelerators = java.util.Map.of("GPU", new beam.cluster.NodeAccelerator(beam.cluster.AcceleratorKind.NVIDIA_GPU,
                List.of("1", "GPU-cc"), null, beam.cluster.NodeAccelerator.VISIBLE));
        try (AcceleratorTelemetry t = AcceleratorTelemetry.start(accelerators, sent::add)) {
            var all = List.of(new DeviceTelemetry.Device("0", "GPU-aa", "H200", 1.0, 1, 2),
                    new DeviceTelemetry.Device("1", "GPU-bb", "H200", 1.0, 1, 2),
                    new DeviceTelemetry.Device("2", "GPU-cc", "H200", 1.0, 1, 2));
            assertThat(t.ownDevices(all)).extracting(DeviceTelemetry.Device::index).containsExactly("1", "2");
            assertThat(t.ownDevices(all.subList(0, 1))).hasSize(1); // nothing matches: the host's devices
        }
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
