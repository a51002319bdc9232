package beam.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The domain speaks records and typed events only: no file of cluster/ imports the frame
 * codec, the protocol or a layer above it (views render it, dispatch frames its events).
 */
class DomainImportsTest {
    private static final Pattern BEAM_IMPORT = Pattern.compile("(?m)^import (?:static )?beam\\.([a-z]+)\\.");

    @Test
    void clusterImportsOnlyTheLayersEveryFolderMayUse() throws IOException {
        Path folder = Path.of("src", "main", "java", "beam", "cluster");
        List<Path> sources;
        try (Stream<Path> files = Files.list(folder)) {
            sources = files.filter(p -> p.toString().endsWith(".java")).toList();
        }
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
