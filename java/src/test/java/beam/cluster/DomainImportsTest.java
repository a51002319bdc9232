package beam.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import beam.util.SourceImports;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The domain speaks records and typed events only: no file of cluster/ uses the frame codec,
 * the protocol or a layer above it (views render it, dispatch frames its events), and no new
 * file imports the JSON library. Its tests are held to the same rule (they may add only the test
 * libraries): they observe the domain through its own types ({@link ClientEvent}), and a test
 * of a frame belongs with the code that makes it (dispatch/).
 */
class DomainImportsTest {
    /** The beam folders a file of cluster/ may use, main and test alike. */
    static final Set<String> DOMAIN_USES = Set.of("cluster", "util", "config");
    /** What a test may import besides what the code it tests may. */
    static final List<String> TEST_LIBRARIES = List.of("org.junit.", "org.assertj.", "net.jqwik.");
    private static final String JSON_LIBRARY = "com.fasterxml.jackson.";
    /**
     * The one file of cluster/, main or test, that may read JSON: the golden table it shares
     * with Python (tests/golden/pg_checks.json). The domain itself never does (issue 39 made
     * node facts, telemetry, resources and runtime_env records).
     */
    static final Set<String> READS_JSON = Set.of("GroupRulesGoldenTest.java");

    /** "root/cluster/File.java uses x" for each thing {@code source} uses that a file of cluster/ may not. */
    static List<String> refused(SourceImports.Source source) {
        List<String> refused = new ArrayList<>();
        for (String used : source.beamPackages()) {
            if (!DOMAIN_USES.contains(used)) refused.add(source.label() + " uses beam." + used);
        }
        boolean test = source.root().equals("test");
        for (String name : source.otherImports()) {
            boolean allowed = name.startsWith("java.") || (test && TEST_LIBRARIES.stream().anyMatch(name::startsWith))
                    || (test && name.startsWith(JSON_LIBRARY) && READS_JSON.contains(source.fileName()));
            if (!allowed) refused.add(source.label() + " imports " + name);
        }
        return refused;
    }

    private static Set<String> importingJson(String root) {
        Set<String> importing = new TreeSet<>();
        for (SourceImports.Source source : SourceImports.under("cluster")) {
            if (!source.root().equals(root)) continue;
            if (source.otherImports().stream().anyMatch(n -> n.startsWith(JSON_LIBRARY))) importing.add(source.fileName());
        }
        return importing;
    }

    @Test
    void noFileOfTheDomainImportsTheJsonLibraryAndTheOneTestThatMayDoes() {
        assertThat(importingJson("main")).as("cluster/ files importing com.fasterxml.jackson (records cross the domain's seams, not JSON)")
                .isEmpty();
        assertThat(importingJson("test")).as("cluster/ tests importing com.fasterxml.jackson").isEqualTo(READS_JSON);
    }

    @Test
    void clusterAndItsTestsUseOnlyWhatTheDomainMay() {
        List<SourceImports.Source> sources = SourceImports.under("cluster");
        assertThat(sources).filteredOn(s -> s.root().equals("main")).hasSizeGreaterThan(20); // the scan read the folder
        assertThat(sources).filteredOn(s -> s.root().equals("test")).hasSizeGreaterThan(15); // and its tests
        assertThat(sources.stream().flatMap(s -> refused(s).stream()).toList())
                .as("what cluster/ (main and test) uses beyond cluster, util, config, java.* and the test libraries").isEmpty();
    }

    @Test
    void aFrameOrAViewInADomainTestIsRefused() {
        // plain string literals, which the scan leaves out when it reads this file itself
        SourceImports.Source test = new SourceImports.Source("test", "cluster", Path.of("XTest.java"), "package beam.cluster;\n"
                + "import beam.util.Ids;\nimport beam.dispatch.WireFrame;\nimport org.junit.jupiter.api.Test;\n"
                + "import com.fasterxml.jackson.databind.JsonNode;\nclass XTest { Object o = beam.views.ClusterViews.F; }\n");
        assertThat(refused(test)).containsExactly("test/cluster/XTest.java uses beam.dispatch", "test/cluster/XTest.java uses beam.views",
                "test/cluster/XTest.java imports com.fasterxml.jackson.databind.JsonNode");
        SourceImports.Source main = new SourceImports.Source("main", "cluster", Path.of("X.java"),
                "package beam.cluster;\nimport org.junit.jupiter.api.Test;\n");
        assertThat(refused(main)).containsExactly("main/cluster/X.java imports org.junit.jupiter.api.Test");
    }
}
