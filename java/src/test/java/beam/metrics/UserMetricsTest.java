package beam.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import beam.codec.FrameCodec;
import beam.protocol.Request;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** ray.util.metrics values as the daemon aggregates and exports them, from the golden frame on. */
class UserMetricsTest {
    private final UserMetrics user = new UserMetrics();

    private static ObjectNode golden(String name) throws Exception {
        for (JsonNode c : FrameCodec.json().readTree(Path.of("..", "tests", "golden", "frames.json").toFile())) {
            if (c.path("name").asText().equals(name)) return (ObjectNode) c.get("header");
        }
        throw new AssertionError("no golden frame " + name);
    }

    private String scrape() throws Exception {
        return new String(new NodeMetrics(user, () -> null, null).scrape(), StandardCharsets.UTF_8);
    }

    @Test
    void theGoldenFrameParsesAndIsExportedWithRayNamesAndTags() throws Exception {
        Request r = beam.protocol.RequestCodec.parse(golden("metrics_all_kinds"));
        assertThat(r).isInstanceOf(Request.Metrics.class);
        assertThat(user.record("p1", ((Request.Metrics) r).metrics())).isNull();
        String text = scrape();
        assertThat(text).contains("ray_vllm_num_requests_running{model_name=\"m\"} 3.0")
                .contains("ray_requests_total 12.0")
                .contains("ray_latency_s_bucket{route=\"/x\",le=\"0.1\"} 2")
                .contains("ray_latency_s_bucket{route=\"/x\",le=\"1.0\"} 3")
                .contains("ray_latency_s_bucket{route=\"/x\",le=\"+Inf\"} 4")
                .contains("ray_latency_s_count{route=\"/x\"} 4")
                .contains("ray_latency_s_sum{route=\"/x\"} 3.25");
    }

    private JsonNode one(String kind, String name, double value, String tagValue) throws Exception {
        return FrameCodec.json().readTree("[{\"name\":\"" + name + "\",\"kind\":\"" + kind + "\",\"tags\":{\"t\":\""
                + tagValue + "\"},\"value\":" + value + "}]");
    }

    @Test
    void countersSumOverProcessesGaugesTakeTheNewestAndAGoneProcessKeepsItsCount() throws Exception {
        user.record("a", one("counter", "c", 2, "x"));
        user.record("b", one("counter", "c", 5, "x"));
        user.record("a", one("gauge", "g", 1, "x"));
        user.record("b", one("gauge", "g", 7, "x"));
        assertThat(scrape()).contains("ray_c_total{t=\"x\"} 7.0").contains("ray_g{t=\"x\"} 7.0");
        user.sourceGone("b");
        assertThat(scrape()).contains("ray_c_total{t=\"x\"} 7.0").contains("ray_g{t=\"x\"} 1.0");
        user.record("a", one("counter", "c", 3, "x")); // a's cumulative count grew from 2 to 3
        assertThat(scrape()).contains("ray_c_total{t=\"x\"} 8.0");
    }

    @Test
    void badReportsAreRefusedByNameAndTheRestIsKept() throws Exception {
        JsonNode mixed = FrameCodec.json().readTree("[{\"name\":\"ok\",\"kind\":\"gauge\",\"value\":1},"
                + "{\"name\":\"bad\",\"kind\":\"summary\",\"value\":1},"
                + "{\"name\":\"\",\"kind\":\"gauge\",\"value\":1},"
                + "{\"name\":\"h\",\"kind\":\"histogram\",\"boundaries\":[1],\"buckets\":[1]}]");
        assertThat(user.record("a", mixed)).contains("kind must be counter, gauge or histogram");
        assertThat(scrape()).contains("ray_ok 1.0").doesNotContain("ray_bad").doesNotContain("ray_h_bucket");
        assertThat(user.record("a", one("counter", "ok", 1, "y"))).contains("first reported as a gauge");
        assertThat(user.record("a", FrameCodec.json().readTree("{}"))).contains("'metrics' (list)");
    }

    @Test
    void nothingOneProcessSendsCanBreakTheScrape() throws Exception {
        JsonNode hostile = FrameCodec.json().readTree("["
                + "{\"name\":\"h1\",\"kind\":\"histogram\",\"boundaries\":[2,1],\"buckets\":[0,0,0]},"
                + "{\"name\":\"h2\",\"kind\":\"histogram\",\"boundaries\":[1,\"x\"],\"buckets\":[0,0,0]},"
                + "{\"name\":\"c1\",\"kind\":\"counter\",\"value\":-5},"
                + "{\"name\":\"c2\",\"kind\":\"counter\",\"value\":\"7\"},"
                + "{\"name\":\"g1\",\"kind\":\"gauge\",\"tags\":{\"le\":\"1\"},\"value\":1},"
                + "{\"name\":\"g2\",\"kind\":\"gauge\",\"tags\":{\"__name__\":\"x\"},\"value\":1},"
                + "{\"name\":\"component_rss_mb\",\"kind\":\"gauge\",\"tags\":{\"Component\":\"fake\"},\"value\":1},"
                + "{\"name\":\"fine\",\"kind\":\"gauge\",\"value\":2}]");
        assertThat(user.record("evil", hostile)).isNotNull();
        String text = scrape();
        assertThat(text).contains("ray_fine 2.0").doesNotContain("ray_h1").doesNotContain("ray_h2")
                .doesNotContain("ray_c1").doesNotContain("ray_c2").doesNotContain("ray_g1").doesNotContain("ray_g2")
                .doesNotContain("Component=\"fake\"").contains("Component=\"beamd\"");
    }

    /** vLLM's vllm:cache_config_info as its Ray wrapper reports it: every CacheConfig field a tag. */
    private static JsonNode infoGauge(int fields, int valueChars) throws Exception {
        ObjectNode tags = FrameCodec.json().createObjectNode();
        for (int i = 0; i < fields; i++) tags.put("field_" + i, "v".repeat(valueChars));
        tags.put("_block_size_resolved", "True").put("engine", "0").put("ReplicaId", "");
        ObjectNode m = FrameCodec.json().createObjectNode().put("name", "vllm:cache_config_info").put("kind", "gauge")
                .put("description", "Information of the LLMEngine CacheConfig").put("value", 1);
        m.set("tags", tags);
        return FrameCodec.json().createArrayNode().add(m);
    }

    @Test
    void vllmsInfoGaugeWithATagPerConfigFieldIsExportedAndTagsAreBoundedInAll() throws Exception {
        assertThat(user.record("engine", infoGauge(38, 5))).isNull(); // 41 tags, as vLLM 0.34's
        assertThat(scrape()).containsPattern("ray_vllm_cache_config_info\\{ReplicaId=\"\",_block_size_resolved=\"True\","
                + "engine=\"0\",field_0=\"vvvvv\",.*field_37=\"vvvvv\",.*field_9=\"vvvvv\"\\} 1.0");
        assertThat(user.record("engine", infoGauge(UserMetrics.MAX_TAGS, 1))).contains("at most " + UserMetrics.MAX_TAGS + " tags");
        assertThat(user.record("engine", infoGauge(20, UserMetrics.MAX_TAG_CHARS / 20)))
                .contains("more than " + UserMetrics.MAX_TAG_CHARS + " characters");
    }

    @Test
    void namesKeepTheirEndingsAsOnRayButACountersTotalIsNotDoubled() throws Exception {
        assertThat(user.record("p", one("gauge", "vllm:lora_requests_info", 2, "x"))).isNull();
        assertThat(user.record("p", one("gauge", "queue_bucket", 3, "x"))).isNull();
        assertThat(user.record("p", one("counter", "jobs_total", 4, "x"))).isNull();
        assertThat(user.record("p", one("counter", "jobs", 1, "y"))).isNull(); // the same family as jobs_total
        assertThat(user.record("p", one("gauge", "jobs", 1, "z"))).contains("first reported as a counter");
        assertThat(scrape()).contains("ray_vllm_lora_requests_info{t=\"x\"} 2.0").contains("ray_queue_bucket{t=\"x\"} 3.0")
                .contains("ray_jobs_total{t=\"x\"} 4.0").contains("ray_jobs_total{t=\"y\"} 1.0").doesNotContain("_total_total");
    }

    @Test
    void seriesAreBoundedAndTheDroppedOnesCounted() throws Exception {
        StringBuilder json = new StringBuilder("[");
        for (int i = 0; i < UserMetrics.MAX_PER_FRAME; i++) {
            if (i > 0) json.append(',');
            json.append("{\"name\":\"s\",\"kind\":\"gauge\",\"tags\":{\"i\":\"").append(i).append("\"},\"value\":1}");
        }
        JsonNode batch = FrameCodec.json().readTree(json.append(']').toString());
        for (int source = 0; source * UserMetrics.MAX_PER_FRAME < UserMetrics.MAX_SERIES; source++) {
            assertThat(user.record(source, batch)).isNull();
        }
        assertThat(user.record("one more", one("gauge", "s", 1, "new"))).contains("already holds");
        assertThat(scrape()).contains("beam_user_metric_series_dropped_total 1.0");
        assertThat(user.record("x", FrameCodec.json().readTree("[" + "{},".repeat(UserMetrics.MAX_PER_FRAME) + "{}]")))
                .contains("at most " + UserMetrics.MAX_PER_FRAME);
    }
}
