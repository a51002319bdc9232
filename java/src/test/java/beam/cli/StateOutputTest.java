package beam.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Ray's `--filter` parsing rules and the YAML `ray get` prints. */
class StateOutputTest {
    @Test
    void aFilterSplitsAtTheFirstPredicateAsRaysDoes() {
        assertThat(StateOutput.filters(List.of("state=ALIVE", "name!=a=b", "a!b=c", "k=!=v")).toString())
                .isEqualTo("[[\"state\",\"=\",\"ALIVE\"],[\"name\",\"!=\",\"a=b\"],[\"a!b\",\"=\",\"c\"],[\"k\",\"=\",\"!=v\"]]");
        assertThatThrownBy(() -> StateOutput.filters(List.of("state"))).hasMessageContaining("Cannot find the predicate");
        assertThatThrownBy(() -> StateOutput.filters(List.of("=x"))).hasMessageContaining("Cannot identify key");
        assertThatThrownBy(() -> StateOutput.filters(List.of("state!="))).hasMessageContaining("Cannot identify key");
    }

    @Test
    void yamlQuotesOnlyWhatWouldReadBackAsAnotherType() throws Exception {
        String yaml = Yaml.document(new ObjectMapper().readTree(
                "[{\"id\": \"ab12\", \"job\": \"01000000\", \"ip\": \"127.0.0.1\", \"n\": 3, \"t\": \"true\", \"none\": null,"
                        + " \"empty\": \"\", \"res\": {\"CPU\": 1.0}, \"list\": [], \"msg\": \"a: b\"}]"));
        assertThat(yaml).isEqualTo("---\n- id: ab12\n  job: '01000000'\n  ip: 127.0.0.1\n  n: 3\n  t: 'true'\n  none: null\n"
                + "  empty: ''\n  res:\n    CPU: 1.0\n  list: []\n  msg: 'a: b'\n...\n");
    }
}
