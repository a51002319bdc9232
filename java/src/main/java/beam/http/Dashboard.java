package beam.http;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;

/**
 * The dashboard page: three static files inside the jar (no build step, no CDN), which
 * render {@code /api/beam/dashboard} and refresh it every two seconds.
 */
final class Dashboard {
    private static final String DIR = "/beam/http/dashboard/";

    private Dashboard() {
    }

    static List<Route> routes() {
        return List.of(asset("/", "index.html", "text/html; charset=utf-8"),
                asset("/dashboard.js", "dashboard.js", "text/javascript; charset=utf-8"),
                asset("/dashboard.css", "dashboard.css", "text/css; charset=utf-8"));
    }

    private static Route asset(String path, String file, String type) {
        byte[][] body = new byte[1][];
        return new Route(path, false, q -> {
            if (body[0] == null) body[0] = load(file);
            return new Route.Reply(200, type, body[0]);
        });
    }

    private static byte[] load(String file) {
        try (InputStream in = Dashboard.class.getResourceAsStream(DIR + file)) {
            if (in == null) throw new IllegalStateException("the jar lacks " + DIR + file);
            return in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + DIR + file + " from the jar", e);
        }
    }
}
