package beam.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A node's facts as a record: read from the JSON a node sends, merged as more arrives, written back the same. */
class HostFactsTest {
    private static ObjectNode json(String text) throws Exception {
        return (ObjectNode) new ObjectMapper().readTree(text);
    }

    private static final String AT_JOIN = "{\"versions\":{\"beam\":\"9.8.7\",\"protocol\":1,\"java\":\"25\"},"
            + "\"interfaces\":[{\"name\":\"eth0\",\"addresses\":[\"10.0.0.2\"]}],\"node_ip_interface\":\"eth0\","
            + "\"accelerators\":{\"GPU\":{\"kind\":\"NVIDIA_GPU\",\"ids\":[\"0\"]}},\"probe_port\":4321}";

    @Test
    void whatANodeSendsAtItsJoinReadsIntoFieldsAndWritesBackAsItCame() throws Exception {
        HostFacts f = HostFacts.fromJson(json(AT_JOIN));
        assertThat(f.interfaces()).containsExactly(new HostFacts.Interface("eth0", List.of("10.0.0.2")));
        assertThat(f.nodeIpInterface()).isEqualTo("eth0");
        assertThat(f.probePort()).isEqualTo(4321);
        assertThat(f.probeError()).isNull();
        assertThat(f.httpPort("metrics")).isEqualTo(-1);
        assertThat(f.versionWarnings()).isNull();
        assertThat(f.toJson()).isEqualTo(json(AT_JOIN));
    }

    @Test
    void laterFactsMergeIntoANewRecordAndLeaveTheOldOneAsItWas() throws Exception {
        HostFacts join = HostFacts.fromJson(json(AT_JOIN));
        HostFacts later = join.merge(json("{\"http_ports\":{\"metrics\":8080,\"agent\":52365}}"))
                .merge(json("{\"versions\":{\"python\":\"3.12.1\"}}"))
                .merge(json("{\"version_warnings\":[\"python 3.12.1 on 10.0.0.2 differs from 3.11.9 on the head\"]}"));
        assertThat(later.httpPorts()).containsExactly(Map.entry("metrics", 8080), Map.entry("agent", 52365));
        assertThat(later.httpPort("agent")).isEqualTo(52365);
        assertThat(later.versions().get("python").asText()).isEqualTo("3.12.1");
        assertThat(later.versions().get("beam").asText()).isEqualTo("9.8.7"); // merged key by key, not replaced
        assertThat(later.versionWarnings()).hasSize(1);
        assertThat(later.toJson().toString()).isEqualTo(AT_JOIN.substring(0, AT_JOIN.length() - 1)
                .replace("\"java\":\"25\"}", "\"java\":\"25\",\"python\":\"3.12.1\"}")
                + ",\"http_ports\":{\"metrics\":8080,\"agent\":52365},\"version_warnings\":"
                + "[\"python 3.12.1 on 10.0.0.2 differs from 3.11.9 on the head\"]}");
        assertThat(join.toJson()).isEqualTo(json(AT_JOIN));
    }

    @Test
    void hostLimitsReadWriteBackAndSurviveLaterMerges() throws Exception {
        String limits = "{\"shm_path\":\"/dev/shm\",\"shm_bytes\":67108864,\"open_files\":1024,\"locked_memory\":-1,"
                + "\"env\":{\"NCCL_SOCKET_IFNAME\":\"eth0\"}}";
        String withLimits = AT_JOIN.substring(0, AT_JOIN.length() - 1) + ",\"host_limits\":" + limits + "}";
        HostFacts f = HostFacts.fromJson(json(withLimits));
        assertThat(f.hostLimits()).isEqualTo(json(limits));
        assertThat(f.toJson()).isEqualTo(json(withLimits));
        assertThat(f.merge(json("{\"http_ports\":{\"metrics\":8080}}")).hostLimits()).isEqualTo(json(limits));
        assertThat(HostFacts.fromJson(json(AT_JOIN)).hostLimits().isEmpty()).isTrue();
    }

    @Test
    void aNodeThatCannotListenForProbesSaysWhy() throws Exception {
        HostFacts f = HostFacts.fromJson(json("{\"probe_port\":-1,\"probe_error\":\"cannot listen on 10.0.0.9\","
                + "\"node_ip_interface\":null}"));
        assertThat(f.probePort()).isEqualTo(-1);
        assertThat(f.probeError()).isEqualTo("cannot listen on 10.0.0.9");
        assertThat(f.nodeIpInterface()).isNull();
        assertThat(f.interfaces()).isEmpty();
    }
}
