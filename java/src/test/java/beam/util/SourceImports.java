package beam.util;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What each source file under beam/ uses, read from the text, for the layer checks
 * (LayersTest, cluster/DomainImportsTest): main and test sources are read alike, so one rule
 * holds for both.
 */
public final class SourceImports {
    /** The two source roots the checks read, as seen from java/ (where Maven runs the tests). */
    public static final List<Path> ROOTS = List.of(Path.of("src", "main", "java", "beam"), Path.of("src", "test", "java", "beam"));

    /** An import or a fully qualified name of a beam class: {@code beam.cluster.Node}, {@code beam.link.head.X}. */
    private static final Pattern BEAM_NAME = Pattern.compile("(?<![\\w.])beam\\.([a-z]+(?:\\.[a-z]+)*)\\.[A-Z]");
    private static final Pattern IMPORT = Pattern.compile("(?m)^import (?:static )?([\\w.]+);");
    private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"");

    private SourceImports() {
    }

    /**
     * One source file: its root ("main" or "test"), its folder under beam/ ("cluster",
     * "link/head"; "" for a file at beam/ itself) and its text.
     */
    public record Source(String root, String folder, Path path, String text) {
        public String fileName() {
            return path.getFileName().toString();
        }

        /** "test/cluster/PlacementTest.java", to name the file in a failure. */
        public String label() {
            return root + "/" + (folder.isEmpty() ? "" : folder + "/") + fileName();
        }

        /** The top folder under beam/ (the layer): "link" for link/head/X.java. */
        public String layer() {
            int slash = folder.indexOf('/');
            return slash < 0 ? folder : folder.substring(0, slash);
        }

        /**
         * The beam packages this file names, in imports and qualified names alike ("cluster",
         * "link.head"), comments and string literals left out.
         */
        public Set<String> beamPackages() {
            Set<String> found = new LinkedHashSet<>();
            for (String line : text.split("\n")) {
                String code = line.strip();
                if (code.startsWith("*") || code.startsWith("//") || code.startsWith("/*") || code.startsWith("package ")) continue;
                Matcher m = BEAM_NAME.matcher(STRING.matcher(code).replaceAll("\"\""));
                while (m.find()) found.add(m.group(1));
            }
            return found;
        }

        /** The names this file imports from outside beam ("java.util.List", "org.junit.jupiter.api.Test"). */
        public List<String> otherImports() {
            List<String> found = new ArrayList<>();
            Matcher m = IMPORT.matcher(text);
            while (m.find()) if (!m.group(1).startsWith("beam.")) found.add(m.group(1));
            return found;
        }
    }

    /** Every .java file under {@code folder} of beam/ ("" for all), in both roots. */
    public static List<Source> under(String folder) {
        List<Source> all = new ArrayList<>();
        for (Path root : ROOTS) {
            Path start = folder.isEmpty() ? root : root.resolve(folder);
            if (!Files.isDirectory(start)) continue;
            String rootName = root.getName(1).toString();
            try (Stream<Path> files = Files.walk(start)) {
                for (Path p : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                    Path parent = root.relativize(p).getParent();
                    all.add(new Source(rootName, parent == null ? "" : parent.toString().replace('\\', '/'), p, Files.readString(p)));
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the sources under " + start, e);
            }
        }
        return all;
    }
}
