package beam.util;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The versions, each written once in python/ray/_version/ and carried in the jar as
 * resources (java/pom.xml): the Ray release beam answers as, and beam's own.
 */
public final class Versions {
    /** The Ray release beam answers as (the distribution, {@code ray.__version__}, the state API). */
    public static final String RAY = read("RAY");
    /** beam's own version. */
    public static final String BEAM = read("BEAM");

    private Versions() {
    }

    private static String read(String name) {
        try (InputStream in = Versions.class.getResourceAsStream("/beam/version/" + name)) {
            if (in == null) throw new IllegalStateException("the jar lacks its version file beam/version/" + name + " (rebuild it)");
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
