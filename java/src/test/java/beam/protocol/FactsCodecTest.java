package beam.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import beam.codec.FrameCodec;
import beam.util.HostFacts;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A node's facts as a record: read from the JSON a node sends, replaced field by field as more arrives, written back the same. */
class FactsCodecTest {
    private static ObjectNode json(String text) throws Exception {
        return (ObjectNode) FrameCodec.json().readTree(text);
    }

    private static final String AT_JOIN = "{\"versions\":{\"beam\":\"9.8.7\",\"protocol\":1,\"java\":\"25\"},"
            + "\"interfaces\":[{\"name\":\"eth0\",\"addresses\":[\"10.0.0.2\"]}],\"node_ip_interface\":\"eth0\","
            + "\"accelerators\":{\"GPU\":{\"kind\":\"NVIDIA_GPU\",\"vendor\":\"NVIDIA\",\"type\":\"H200\","
            + "\"visible_var\":\"CUDA_VISIBLE_DEVICES\",\"source\":\"detected\",\"ids\":[\"0\"],"
            + "\"node_visible_value\":null}},\"probe_port\":4321}";

    @Test
    void whatANodeSendsAtItsJoinReadsIntoFieldsAndWritesBackAsItCame() throws Exception {
        HostFacts f = FactsCodec.hostFacts(json(AT_JOIN));
        assertThat(f.interfaces()).containsExactly(new HostFacts.Interface("eth0", List.of("10.0.0.2")));
        assertThat(f.nodeIpInterface()).isEqualTo("eth0");
        assertThat(f.versions()).containsEntry("protocol", "1").containsEntry("beam", "9.8.7");
        assertThat(f.accelerators().get("GPU")).isEqualTo(new HostFacts.Accelerator("NVIDIA_GPU", "NVIDIA", "H200",
                "CUDA_VISIBLE_DEVICES", "detected", List.of("0"), null));
        assertThat(f.probePort()).isEqualTo(4321);
        assertThat(f.probeError()).isNull();
        assertThat(f.httpPort("metrics")).isEqualTo(-1);
        assertThat(f.versionWarnings()).isNull();
        assertThat(f.hostLimits().reported()).isFalse();
        assertThat(FactsCodec.hostFacts(f).toString()).isEqualTo(AT_JOIN);
    }

    @Test
    void laterFactsMakeANewRecordAndLeaveTheOldOneAsItWas() throws Exception {
        HostFacts join = FactsCodec.hostFacts(json(AT_JOIN));
        Map<String, String> python = new java.util.LinkedHashMap<>();
        python.put("python", "3.12.1");
        python.put("vllm", null);
        HostFacts later = join.withHttpPorts(Map.of("metrics", 8080)).withVersions(python)
                .withVersionWarnings(List.of("python 3.12.1 on 10.0.0.2 differs from 3.11.9 on the head"));
        assertThat(later.httpPort("metrics")).isEqualTo(8080);
        assertThat(later.versions()).containsEntry("python", "3.12.1").containsEntry("beam", "9.8.7"); // merged key by key
        assertThat(FactsCodec.hostFacts(later).toString()).isEqualTo(AT_JOIN.substring(0, AT_JOIN.length() - 1)
                .replace("\"java\":\"25\"}", "\"java\":\"25\",\"python\":\"3.12.1\",\"vllm\":null}")
                + ",\"http_ports\":{\"metrics\":8080},\"version_warnings\":"
                + "[\"python 3.12.1 on 10.0.0.2 differs from 3.11.9 on the head\"]}");
        assertThat(FactsCodec.hostFacts(join).toString()).isEqualTo(AT_JOIN);
    }

    @Test
    void hostLimitsReadIntoNamedFieldsAndWriteBackInTheirOrder() throws Exception {
        String limits = "{\"shm_path\":\"/dev/shm\",\"shm_bytes\":67108864,\"open_files\":1024,\"locked_memory\":-1,"
                + "\"rdma_devices\":0,\"env\":{\"NCCL_SOCKET_IFNAME\":\"eth0\"}}";
        String withLimits = AT_JOIN.substring(0, AT_JOIN.length() - 1) + ",\"host_limits\":" + limits + "}";
        HostFacts f = FactsCodec.hostFacts(json(withLimits));
        assertThat(f.hostLimits()).isEqualTo(new HostFacts.Limits("/dev/shm", 67108864L, null, 1024L, -1L, null, 0,
                Map.of("NCCL_SOCKET_IFNAME", "eth0"), null));
        assertThat(FactsCodec.hostFacts(f).toString()).isEqualTo(withLimits);
        assertThat(f.withHttpPorts(Map.of("metrics", 8080)).hostLimits()).isEqualTo(f.hostLimits());
        assertThat(FactsCodec.limits(HostFacts.Limits.NONE).toString()).isEqualTo("{}");
    }

    @Test
    void aNodeThatCannotListenForProbesSaysWhyAndMistypedFieldsReadAsAbsent() throws Exception {
        HostFacts f = FactsCodec.hostFacts(json("{\"probe_port\":-1,\"probe_error\":\"cannot listen on 10.0.0.9\","
                + "\"node_ip_interface\":null,\"versions\":[1],\"accelerators\":\"none\",\"host_limits\":7}"));
        assertThat(f.probePort()).isEqualTo(-1);
        assertThat(f.probeError()).isEqualTo("cannot listen on 10.0.0.9");
        assertThat(f.nodeIpInterface()).isNull();
        assertThat(f.interfaces()).isEmpty();
        assertThat(f.versions()).isEmpty();
        assertThat(f.accelerators()).isEmpty();
        assertThat(f.hostLimits()).isEqualTo(HostFacts.Limits.NONE);
    }

    @Test
    void aJoinReadsItsFactsTypedAndLeavesAcceleratorsThatAreNoObjectForTheHeadToRefuse() throws Exception {
        ObjectNode join = json("{\"op\":\"join\",\"rid\":1,\"proto\":1,\"node_id\":\"n\",\"node_ip\":\"10.0.0.2\","
                + "\"accelerators\":[1],\"facts\":" + AT_JOIN + "}");
        LinkMessage.Join read = LinkCodec.join(new beam.codec.Frame(join));
        assertThat(read.accelerators()).as("no object: null, which cluster/NodeAccelerator.of refuses").isNull();
        assertThat(read.facts()).isEqualTo(FactsCodec.hostFacts(json(AT_JOIN)));
        join.remove("accelerators");
        join.remove("facts");
        read = LinkCodec.join(new beam.codec.Frame(join));
        assertThat(read.accelerators()).isEmpty();
        assertThat(read.facts()).isEqualTo(HostFacts.NONE);
    }

    @Test
    void labelsAreAJsonObjectOfStringsStrictOnTheCommandLineLenientInAJoin() throws Exception {
        ObjectNode labels = json("{\"zone\":\"a\",\"rack\":7}");
        assertThat(JsonText.strings(labels, "join labels", false)).containsExactly(Map.entry("zone", "a"));
        assertThat(JsonText.strings(json("{}").arrayNode(), "join labels", false)).isEmpty();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> JsonText.strings(labels, "--labels", true))
                .hasMessage("The value of the \"rack\" in --labels is not string type");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> JsonText.strings(labels.arrayNode(), "--labels", true))
                .hasMessage("--labels is not a JSON object");
    }
}
