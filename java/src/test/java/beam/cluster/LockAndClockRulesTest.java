package beam.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The cluster's lock and clock are its own (issue 39), read in the sources so that the rules
 * cannot regress: the lock is {@link ClusterTables#lock}, which only cluster/ can take, and
 * the domain reads time only through the Scheduler the Cluster is made with.
 */
class LockAndClockRulesTest {
    private static final Path MAIN = Path.of("src", "main", "java");
    private static final Path DOMAIN = MAIN.resolve(Path.of("beam", "cluster"));
    /** Any {@code synchronized} in cluster/, with what it locks if it is a block. */
    private static final Pattern SYNCHRONIZED = Pattern.compile("\\bsynchronized\\b(\\s*\\(([^)]*)\\))?");
    /** A block locking a cluster from outside: {@code synchronized (cluster)}, {@code (this.cluster)}, {@code (ctx.cluster())}. */
    private static final Pattern LOCKS_A_CLUSTER = Pattern.compile("\\bsynchronized\\s*\\(\\s*[\\w.]*\\bcluster(\\(\\))?\\s*\\)",
            Pattern.CASE_INSENSITIVE);
    private static final List<String> SYSTEM_TIME = List.of("System.nanoTime", "System.currentTimeMillis", "Instant.now",
            "Scheduler.system()", "Clock.SYSTEM", "LocalDateTime.now", "ZonedDateTime.now", "new Date()");

    private static List<Path> sources(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> p.toString().endsWith(".java")).toList();
        }
    }

    private static long line(String text, int offset) {
        return text.substring(0, offset).chars().filter(c -> c == '\n').count() + 1;
    }

    @Test
    void nothingOutsideTheDomainLocksACluster() throws IOException {
        List<String> found = new ArrayList<>();
        List<Path> sources = sources(MAIN);
        assertThat(sources).hasSizeGreaterThan(100); // the scan read the tree
        for (Path source : sources) {
            String text = Files.readString(source);
            Matcher m = LOCKS_A_CLUSTER.matcher(text);
            while (m.find()) found.add(MAIN.relativize(source) + ":" + line(text, m.start()) + ": " + m.group());
        }
        assertThat(found).as("blocks that lock a cluster object (read Cluster's snapshots or point queries instead)").isEmpty();
    }

    @Test
    void theDomainsOnlyMonitorIsTheClusterLock() throws IOException {
        List<String> found = new ArrayList<>();
        List<Path> sources = sources(DOMAIN);
        assertThat(sources).hasSizeGreaterThan(20);
        for (Path source : sources) {
            String text = Files.readString(source);
            Matcher m = SYNCHRONIZED.matcher(text);
            while (m.find()) {
                String target = m.group(2) == null ? null : m.group(2).strip();
                if (!"lock".equals(target)) found.add(source.getFileName() + ":" + line(text, m.start()) + ": " + m.group());
            }
        }
        assertThat(found).as("synchronized methods, or blocks on anything but the cluster's lock, in cluster/").isEmpty();
    }

    @Test
    void theDomainReadsTimeOnlyOnItsInjectedClock() throws IOException {
        List<String> found = new ArrayList<>();
        for (Path source : sources(DOMAIN)) {
            String text = Files.readString(source);
            for (String read : SYSTEM_TIME) if (text.contains(read)) found.add(source.getFileName() + ": " + read);
        }
        assertThat(found).as("time read in cluster/ around the Scheduler the Cluster is made with").isEmpty();
    }

    @Test
    void theRulesCatchWhatTheyForbid() {
        assertThat(LOCKS_A_CLUSTER.matcher("synchronized (cluster) {").find()).isTrue();
        assertThat(LOCKS_A_CLUSTER.matcher("synchronized(daemon.cluster()) {").find()).isTrue();
        assertThat(LOCKS_A_CLUSTER.matcher("synchronized (clusterViews) {").find()).isFalse();
        Matcher method = SYNCHRONIZED.matcher("public synchronized void addNode(Node node) {");
        assertThat(method.find() && method.group(2) == null).as("a synchronized method is seen as one").isTrue();
    }
}
