package beam.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The domain speaks records and typed events only: no file of cluster/ imports the frame
 * codec, the protocol or a layer above it (views render it, dispatch frames its events), and
 * no new file imports the JSON library.
 */
class DomainImportsTest {
    private static final Pattern BEAM_IMPORT = Pattern.compile("(?m)^import (?:static )?beam\\.([a-z]+)\\.");
    private static final Pattern JSON_IMPORT = Pattern.compile("(?m)^import (?:static )?com\\.fasterxml\\.jackson\\.");
    /**
     * The files of cluster/ that still hold JSON (issue 39: node facts, telemetry, resources and
     * runtime_env become records). This list only shrinks: a file that stops importing Jackson
     * must leave it, and no file may join it.
     */
    static final Set<String> STILL_JSON = Set.of("Cluster.java", "DeviceTelemetry.java", "HostFacts.java", "Node.java",
            "NodeAccelerator.java");

    private static List<Path> sources() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("src", "main", "java", "beam", "cluster"))) {
            return files.filter(p -> p.toString().endsWith(".java")).toList();
        }
    }

    @Test
    void onlyTheListedFilesImportTheJsonLibraryAndTheListOnlyShrinks() throws IOException {
        Set<String> importing = new TreeSet<>();
        for (Path source : sources()) {
            if (JSON_IMPORT.matcher(Files.readString(source)).find()) importing.add(source.getFileName().toString());
        }
        assertThat(importing).as("cluster/ files importing com.fasterxml.jackson (records cross the domain's seams, not JSON)")
                .isSubsetOf(STILL_JSON);
        assertThat(STILL_JSON).as("files that no longer import Jackson: take them off STILL_JSON").isSubsetOf(importing);
    }

    @Test
    void clusterImportsOnlyTheLayersEveryFolderMayUse() throws IOException {
        List<Path> sources = sources();
        assertThat(sources).hasSizeGreaterThan(20); // the scan read the folder
        for (Path source : sources) {
            Matcher m = BEAM_IMPORT.matcher(Files.readString(source));
            while (m.find()) {
                assertThat(m.group(1)).as("%s imports beam.%s", source.getFileName(), m.group(1))
                        .isIn("cluster", "util", "config");
            }
        }
    }
}
