package beam.http;

import static beam.views.StateTable.Shown.BASE_FILTERABLE;
import static org.assertj.core.api.Assertions.assertThat;

import beam.cluster.ClusterSnapshot;
import beam.codec.FrameCodec;
import beam.views.ClusterLogs;
import beam.views.StateTable;
import beam.views.StateTables;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The head's {@code /api/v0/<table>} routes come from the table registry: every table has one, on a real socket. */
class StateApiRoutesTest {
    private final HttpClient client = HttpClient.newHttpClient();
    private HttpFace face;

    /** A head with an empty cluster: the routes under test only list tables. */
    private static final HeadClusterReads EMPTY = new HeadClusterReads() {
        @Override
        public ClusterSnapshot status() {
            return new ClusterSnapshot("ns", List.of(), List.of(), List.of(), List.of(), Map.of(), 0, List.of(), 60_000);
        }

        @Override
        public ObjectNode log(ClusterLogs.Ask ask) {
            throw new UnsupportedOperationException("no logs in this test");
        }

        @Override
        public JsonNode actorStack(String actorId) {
            throw new UnsupportedOperationException("no stacks in this test");
        }
    };

    @AfterEach
    void stop() {
        if (face != null) face.close();
    }

    private JsonNode get(String path) throws Exception {
        int port = face.ports().get("dashboard");
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("GET %s answered %s", path, r.body()).isEqualTo(200);
        return FrameCodec.json().readTree(r.body());
    }

    private void start(StateTables tables) throws Exception {
        face = new HttpFace(new HttpConfig("127.0.0.1", 0, 0, 0, true), "t".repeat(32),
                Map.of("dashboard", new HttpFace.Face(0, StateApi.routes(EMPTY, tables))));
    }

    @Test
    void everyStandardTableHasItsListRoute() throws Exception {
        start(StateApi.TABLES);
        assertThat(StateApi.TABLES.all()).extracting(StateTable::name)
                .contains("actors", "nodes", "placement_groups", "tasks");
        for (StateTable<?> t : StateApi.TABLES.all()) {
            JsonNode reply = get(StateApi.LIST_PREFIX + t.name() + "?detail=true");
            assertThat(reply.path("result").asBoolean()).isTrue();
            assertThat(reply.path("data").path("result").path("total").asInt()).as(t.name()).isZero();
        }
        List<String> paths = StateApi.routes(EMPTY).stream().map(Route::path).toList();
        for (StateTable<?> t : StateApi.TABLES.all()) assertThat(paths).contains(StateApi.LIST_PREFIX + t.name());
    }

    private record Job(String id) {
    }

    @Test
    void aTableAddedToTheRegistryIsServedWithoutTouchingTheRoutes() throws Exception {
        StateTable<Job> jobs = new StateTable.Builder<Job>("jobs", "job_id", snapshot -> List.of(new Job("01"), new Job("02")))
                .text("job_id", BASE_FILTERABLE, Job::id)
                .build();
        start(StateTables.standard().with(jobs));
        JsonNode page = get("/api/v0/jobs?filter_keys=job_id&filter_predicates=!%3D&filter_values=01").path("data").path("result");
        assertThat(page.path("total").asInt()).isEqualTo(2);
        assertThat(page.path("result").toString()).isEqualTo("[{\"job_id\":\"02\"}]");
    }
}
