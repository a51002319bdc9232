package beam.node;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CompletableFuture;

/** Runs a vendor tool (nvidia-smi, amd-smi, neuron-ls) for the accelerator probe. */
final class VendorTools {
    /** A tool that has not answered by then is killed and counts as absent: `ray start` must not hang on a wedged driver. */
    static final long TIMEOUT_SECONDS = 5;

    private VendorTools() {
    }

    /** The tool's stdout lines, or none if it is not installed, fails or hangs. */
    static List<String> run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            p.getOutputStream().close();
            var out = CompletableFuture.supplyAsync(() -> {
                try {
                    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    return "";
                }
            }, r -> Thread.ofVirtual().start(r));
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return List.of();
            }
            return p.exitValue() == 0 ? out.join().lines().toList() : List.of();
        } catch (IOException e) {
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }
}
