package beam;

import static org.assertj.core.api.Assertions.assertThat;

import beam.util.SourceImports;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The folders under beam/ are layers, in the order README's layout lists them: a file may
 * import its own folder and the folders of the layers below it, never one above. Imports (and
 * fully qualified names) are read from the sources, main and test alike ({@link SourceImports}),
 * so a new upward edge (or a new folder not given a layer) fails here. Within link/, the two
 * sides of the node link (link/head/, link/member/) never import each other.
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

    static int rank(String folder) {
        for (int i = 0; i < LAYERS.size(); i++) if (LAYERS.get(i).contains(folder)) return i;
        return -1;
    }

    /**
     * {layer: [(file, imported layer)]} for every source under beam/, main and test alike: a
     * test sits in the layer of the code it tests and may use no more than that code may (its
     * test doubles included). The files at beam/ itself (this test) read the whole tree and
     * belong to no layer.
     */
    private static Map<String, List<String[]>> imports() {
        Map<String, List<String[]>> found = new TreeMap<>();
        for (SourceImports.Source source : SourceImports.under("")) {
            if (source.folder().isEmpty()) continue;
            List<String[]> edges = found.computeIfAbsent(source.layer(), f -> new ArrayList<>());
            for (String used : source.beamPackages()) edges.add(new String[] {source.label(), used.split("\\.")[0]});
        }
        return found;
    }

    @Test
    void everyFolderHasALayer() {
        Map<String, List<String[]>> found = imports();
        assertThat(found).hasSizeGreaterThan(12); // the scan read the tree
        for (String folder : found.keySet()) assertThat(rank(folder)).as("the layer of beam/%s", folder).isNotNegative();
    }

    @Test
    void theScanReadsTestSourcesAndQualifiedNames() {
        List<SourceImports.Source> cluster = SourceImports.under("cluster");
        assertThat(cluster).extracting(SourceImports.Source::label).contains("main/cluster/Cluster.java", "test/cluster/PlacementTest.java");
        assertThat(new SourceImports.Source("test", "cluster", Path.of("X.java"),
                "package beam.cluster;\n/** beam.views.Hidden in a comment */\nclass X { Object o = beam.views.ClusterViews.F; String s = \"beam.cli.Main\"; }\n")
                .beamPackages()).containsExactly("views");
    }

    /** "root/folder/File.java imports beam.x" for every use of a layer above the file's. */
    static List<String> upwardEdges(Map<String, List<String[]>> imports) {
        List<String> upward = new ArrayList<>();
        for (var entry : imports.entrySet()) {
            for (String[] edge : entry.getValue()) {
                if (rank(edge[1]) > rank(entry.getKey())) upward.add(edge[0] + " imports beam." + edge[1]);
            }
        }
        return upward;
    }

    @Test
    void noFolderImportsOneAboveIt() {
        Map<String, List<String[]>> found = imports();
        assertThat(found.values().stream().mapToInt(List::size).sum()).isGreaterThan(100); // it read imports
        assertThat(upwardEdges(found)).as("imports that reach up a layer").isEmpty();
    }

    /**
     * "root/link/side/File.java imports beam.link.other" for every use across the node link:
     * link/head/ runs on the head, link/member/ on a joined node, and link/ itself is what both
     * ends share, so none of the three uses another side's folder (main and test sources alike).
     */
    static List<String> crossLinkEdges(Map<String, List<String[]>> linkImports) {
        List<String> crossing = new ArrayList<>();
        for (var entry : linkImports.entrySet()) {
            for (String[] edge : entry.getValue()) {
                if (!edge[1].equals(entry.getKey())) crossing.add(edge[0] + " imports beam.link." + edge[1]);
            }
        }
        return crossing;
    }

    @Test
    void neitherSideOfTheNodeLinkImportsTheOther() {
        Map<String, List<String[]>> found = new TreeMap<>();
        for (SourceImports.Source source : SourceImports.under("link")) {
            String side = source.folder().equals("link") ? "" : source.folder().substring("link/".length());
            List<String[]> edges = found.computeIfAbsent(side, f -> new ArrayList<>());
            for (String used : source.beamPackages()) {
                if (used.startsWith("link.")) edges.add(new String[] {source.label(), used.substring("link.".length())});
            }
        }
        assertThat(found.keySet()).as("link/'s folders: shared, head, member").containsExactly("", "head", "member");
        assertThat(crossLinkEdges(found)).as("imports across the node link").isEmpty();
    }

    @Test
    void aCrossLinkEdgeIsFound() {
        Map<String, List<String[]>> imports = Map.of(
                "head", List.<String[]>of(new String[] {"main/link/head/HeadGate.java", "member"}),
                "member", List.<String[]>of(),
                "", List.<String[]>of(new String[] {"test/link/PulseTest.java", "head"}));
        assertThat(crossLinkEdges(imports)).containsExactlyInAnyOrder("main/link/head/HeadGate.java imports beam.link.member",
                "test/link/PulseTest.java imports beam.link.head");
    }

    @Test
    void anUpwardEdgeIsFound() {
        Map<String, List<String[]>> imports = Map.of(
                "link", List.of(new String[] {"main/link/HeadLinkToMember.java", "cluster"},
                        new String[] {"test/link/NodeLinkTest.java", "dispatch"}),
                "dispatch", List.<String[]>of(new String[] {"main/dispatch/Session.java", "link"}));
        assertThat(upwardEdges(imports)).containsExactly("test/link/NodeLinkTest.java imports beam.dispatch");
    }
}
