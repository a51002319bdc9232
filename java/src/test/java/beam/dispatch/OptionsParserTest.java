package beam.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import beam.cluster.ActorOptions;
import beam.cluster.Resources;
import beam.cluster.RuntimeEnv;
import beam.codec.FrameCodec;
import beam.protocol.Request.BadRequest;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

/** create_actor's options as the daemon keeps them: resources typed, the runtime_env passed through unread. */
class OptionsParserTest {
    private static ObjectNode options(String json) throws Exception {
        return (ObjectNode) FrameCodec.json().readTree(json);
    }

    @Test
    void theRuntimeEnvReachesTheWorkerAsTheDriverGaveIt() throws Exception {
        String given = "{\"env_vars\":{\"FOO\":\"bär ✓\",\"Q\":\"\\\"quoted\\\"\"},\"pip\":[\"a==1\",\"b\"],"
                + "\"config\":{\"setup_timeout_seconds\":600,\"eager_install\":true,\"ratio\":0.25,\"none\":null}}";
        ObjectNode o = options("{\"runtime_env\": " + given + "}");
        RuntimeEnv env = OptionsParser.parse(1, o).runtimeEnv();
        // what ActorInit puts in actor_init: the same tree, so the same bytes on the wire
        assertThat(FrameCodec.json().readTree(env.json())).isEqualTo(o.get("runtime_env"));
        assertThat(FrameCodec.json().writeValueAsString(FrameCodec.json().readTree(env.json()))).isEqualTo(given);
    }

    @Test
    void aMissingOrNonObjectRuntimeEnvIsTheEmptyOne() throws Exception {
        assertThat(OptionsParser.parse(1, options("{}")).runtimeEnv()).isEqualTo(RuntimeEnv.NONE);
        assertThat(OptionsParser.parse(1, options("{\"runtime_env\": null}")).runtimeEnv()).isEqualTo(RuntimeEnv.NONE);
        assertThat(OptionsParser.parse(1, options("{\"runtime_env\": [1]}")).runtimeEnv().json()).isEqualTo("{}");
    }

    @Test
    void customResourcesAreTypedAndBadOnesSayWhatIsWrong() throws Exception {
        ActorOptions ok = OptionsParser.parse(1, options("{\"resources\": {\"widget\": 0.5}, \"num_cpus\": 1}"));
        assertThat(ok.request().get("widget")).isEqualTo(Resources.UNIT / 2);
        assertThat(ok.request().get("CPU")).isEqualTo(Resources.UNIT);
        assertThatThrownBy(() -> OptionsParser.parse(1, options("{\"resources\": {\"widget\": \"half\"}}")))
                .isInstanceOf(BadRequest.class)
                .hasMessage("create_actor: resources: amount of 'widget' must be a number, got \"half\"");
        assertThatThrownBy(() -> OptionsParser.parse(1, options("{\"resources\": {\"widget\": -1}}")))
                .hasMessage("create_actor: resources: amount of 'widget' must be non-negative (>= 0), got -1.0");
        assertThatThrownBy(() -> OptionsParser.parse(1, options("{\"resources\": [\"widget\"]}")))
                .hasMessage("create_actor: resources must be a dict of resource name to amount");
        assertThatThrownBy(() -> OptionsParser.bundles(1, options("{\"b\": [{\"GPU\": 0.00001}]}").get("b")))
                .hasMessage("pg_create: bundle 0: amount of 'GPU' (1.0E-5) is below the resolution of 0.0001");
    }
}
