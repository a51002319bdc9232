package beam;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The folders under beam/ are layers, in the order README's layout lists them: a file may
 * import its own folder and the folders of the layers below it, never one above. Imports are
 * read from the sources, so a new upward edge (or a new folder not given a layer) fails here.
 * Within link/, the two sides of the node link (link/head/, link/member/) never import each other.
 */
class LayersTest {
    /** Bottom first, as README lists them (one folder per entry: README's order is total). */
    static final List<List<String>> LAYERS = List.of(
            List.of("util"),
            List.of("config"),
            List.of("codec"),
            List.of("connection"),
            List.of("protocol"),
            List.of("auth"),
            List.of("cluster"),
            List.of("link"),
            List.of("views"),
            List.of("node"),
            List.of("metrics"),
            List.of("dispatch"),
            List.of("http"),
            List.of("daemon"),
            List.of("cli"));
    private static final Pattern BEAM_IMPORT = Pattern.compile("(?m)^import (?:static )?beam\\.([a-z]+)\\.");
    private static final Path SOURCES = Path.of("src", "main", "java", "beam");

    static int rank(String folder) {
        for (int i = 0; i < LAYERS.size(); i++) if (LAYERS.get(i).contains(folder)) return i;
        return -1;
    }

    /** {folder: [(file, imported folder)]} for every source under beam/. */
    private static Map<String, List<String[]>> imports() throws IOException {
        Map<String, List<String[]>> found = new TreeMap<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path source : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String folder = SOURCES.relativize(source).getName(0).toString();
                List<String[]> edges = found.computeIfAbsent(folder, f -> new ArrayList<>());
                Matcher m = BEAM_IMPORT.matcher(Files.readString(source));
                while (m.find()) edges.add(new String[] {source.getFileName().toString(), m.group(1)});
            }
        }
        return found;
    }

    @Test
    void everyFolderHasALayer() throws IOException {
        Map<String, List<String[]>> found = imports();
        assertThat(found).hasSizeGreaterThan(12); // the scan read the tree
        for (String folder : found.keySet()) assertThat(rank(folder)).as("the layer of beam/%s", folder).isNotNegative();
    }

    /** "folder/File.java imports beam.x" for every import of a layer above the file's. */
    static List<String> upwardEdges(Map<String, List<String[]>> imports) {
        List<String> upward = new ArrayList<>();
        for (var entry : imports.entrySet()) {
            for (String[] edge : entry.getValue()) {
                if (rank(edge[1]) > rank(entry.getKey())) {
                    upward.add(entry.getKey() + "/" + edge[0] + " imports beam." + edge[1]);
                }
            }
        }
        return upward;
    }

    @Test
    void noFolderImportsOneAboveIt() throws IOException {
        Map<String, List<String[]>> found = imports();
        assertThat(found.values().stream().mapToInt(List::size).sum()).isGreaterThan(100); // it read imports
        assertThat(upwardEdges(found)).as("imports that reach up a layer").isEmpty();
    }

    private static final Pattern LINK_SIDE_IMPORT = Pattern.compile("(?m)^import (?:static )?beam\\.link\\.(head|member)\\.");

    /**
     * "link/side/File.java imports beam.link.other" for every import across the node link:
     * link/head/ runs on the head, link/member/ on a joined node, and link/ itself is what both
     * ends share, so none of the three imports another side's folder.
     */
    static List<String> crossLinkEdges(Map<String, List<String[]>> linkImports) {
        List<String> crossing = new ArrayList<>();
        for (var entry : linkImports.entrySet()) {
            for (String[] edge : entry.getValue()) {
                if (!edge[1].equals(entry.getKey())) crossing.add("link/" + (entry.getKey().isEmpty() ? "" : entry.getKey() + "/")
                        + edge[0] + " imports beam.link." + edge[1]);
            }
        }
        return crossing;
    }

    @Test
    void neitherSideOfTheNodeLinkImportsTheOther() throws IOException {
        Path link = SOURCES.resolve("link");
        Map<String, List<String[]>> found = new TreeMap<>();
        try (Stream<Path> files = Files.walk(link)) {
            for (Path source : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                Path folder = link.relativize(source).getParent();
                String side = folder == null ? "" : folder.toString();
                List<String[]> edges = found.computeIfAbsent(side, f -> new ArrayList<>());
                Matcher m = LINK_SIDE_IMPORT.matcher(Files.readString(source));
                while (m.find()) edges.add(new String[] {source.getFileName().toString(), m.group(1)});
            }
        }
        assertThat(found.keySet()).as("link/'s folders: shared, head, member").containsExactly("", "head", "member");
        assertThat(crossLinkEdges(found)).as("imports across the node link").isEmpty();
    }

    @Test
    void aCrossLinkEdgeIsFound() {
        Map<String, List<String[]>> imports = Map.of(
                "head", List.<String[]>of(new String[] {"HeadGate.java", "member"}),
                "member", List.<String[]>of(),
                "", List.<String[]>of(new String[] {"Pulse.java", "head"}));
        assertThat(crossLinkEdges(imports)).containsExactlyInAnyOrder("link/head/HeadGate.java imports beam.link.member",
                "link/Pulse.java imports beam.link.head");
    }

    @Test
    void anUpwardEdgeIsFound() {
        Map<String, List<String[]>> imports = Map.of(
                "link", List.of(new String[] {"HeadLinkToMember.java", "cluster"}, new String[] {"HeadLinkToMember.java", "dispatch"}),
                "dispatch", List.<String[]>of(new String[] {"Session.java", "link"}));
        assertThat(upwardEdges(imports)).containsExactly("link/HeadLinkToMember.java imports beam.dispatch");
    }
}
