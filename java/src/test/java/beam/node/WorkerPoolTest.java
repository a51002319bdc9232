package beam.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which actors a pooled worker may become (the rest get a fresh process). */
class WorkerPoolTest {
    @TempDir
    Path dir;

    private WorkerPool pool(String python, Map<String, String> env) {
        return new WorkerPool(python, "/nonexistent.sock", env, 0, () -> 0, 10);
    }

    @Test
    void variablesReadAfterStartUpMayDifferAndOnesReadAtStartUpMayNot() throws Exception {
        Path python = Files.createFile(dir.resolve("python3.11"));
        Map<String, String> base = Map.of("PATH", "/usr/bin", "HOME", "/root", "PYTHONUNBUFFERED", "1");
        WorkerPool pool = pool(python.toString(), base);
        Map<String, String> actor = new HashMap<>(base);
        actor.put("CUDA_VISIBLE_DEVICES", "2");
        actor.put("OMP_NUM_THREADS", "1");
        actor.put("MY_SETTING", "x");
        assertThat(pool.fits(python.toString(), actor)).isTrue();
        for (String startUp : new String[] {"PYTHONPATH", "LD_PRELOAD", "LC_ALL", "LANG", "TZ", "MALLOC_ARENA_MAX"}) {
            Map<String, String> other = new HashMap<>(actor);
            other.put(startUp, "changed");
            assertThat(pool.fits(python.toString(), other)).as(startUp).isFalse();
        }
        Map<String, String> noHome = new HashMap<>(actor);
        noHome.remove("HOME");
        assertThat(pool.fits(python.toString(), noHome)).isFalse();
    }

    @Test
    void onlyTheSameInterpreterInTheSameFolder() throws Exception {
        Path python = Files.createFile(dir.resolve("python3.11"));
        Path link = Files.createSymbolicLink(dir.resolve("python"), python.getFileName());
        Path elsewhere = Files.createDirectory(dir.resolve("other-venv")).resolve("python");
        Files.createSymbolicLink(elsewhere, python);
        WorkerPool pool = pool(python.toString(), Map.of());
        assertThat(pool.fits(link.toString(), Map.of())).isTrue();
        assertThat(pool.fits(elsewhere.toString(), Map.of())).as("another venv's prefix").isFalse();
        assertThat(pool.fits(dir.resolve("python3.12").toString(), Map.of())).isFalse();
        assertThat(pool.fits(null, Map.of())).isFalse();
    }

    @Test
    void withoutItsPythonThereIsNoPool() {
        WorkerPool pool = pool("", Map.of());
        pool.refill();
        assertThat(pool.idleCount()).isZero();
        assertThat(pool.fits("", Map.of())).isFalse();
    }
}
