package beam.cli;

import beam.cluster.Labels;
import beam.config.Environment;
import beam.protocol.JsonText;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The labels a node is started with, as {@code ray start} reads them: {@code --labels-file}
 * (a YAML mapping of strings), then {@code --labels "k1=v1,k2=v2"} on top (Ray's older JSON
 * object form is still read, with Ray's deprecation warning), then {@link Labels#OVERRIDE_ENV}.
 * Each is checked with Ray's syntax rules ({@link Labels}); a bad one stops the start with
 * Ray's words and the form that works.
 */
final class LabelFlags {
    private static final ObjectMapper JSON = new ObjectMapper();

    private LabelFlags() {
    }

    static Map<String, String> read(String flag, String file, Environment env) {
        Map<String, String> labels = new LinkedHashMap<>();
        if (file != null && !file.isEmpty()) labels.putAll(fromFile(Path.of(file)));
        if (flag != null) labels.putAll(fromFlag(flag));
        String override = env.given(Labels.OVERRIDE_ENV);
        if (override != null) {
            try {
                labels.putAll(JsonText.strings(JSON.readTree(override), "the value of " + Labels.OVERRIDE_ENV, true));
            } catch (IOException e) {
                throw new IllegalArgumentException(Labels.OVERRIDE_ENV + " must be a JSON object of strings, got '"
                        + override + "'");
            }
        }
        return Labels.checked(labels);
    }

    /** {@code --labels}: Ray's {@code key1=val1,key2=val2}, or its deprecated JSON object. */
    static Map<String, String> fromFlag(String text) {
        try {
            return Labels.checked(pairs(text));
        } catch (IllegalArgumentException pairsFailed) {
            try {
                Map<String, String> labels = JsonText.strings(JSON.readTree(text), "--labels", true);
                System.err.println("DeprecationWarning: passing node labels with `--labels` in JSON format is deprecated "
                        + "and will be removed in a future version of Ray.");
                return Labels.checked(labels);
            } catch (IOException | IllegalArgumentException notJson) {
                throw new IllegalArgumentException("`--labels=" + text + "` is not a valid string of key-value pairs, "
                        + "detailed error: " + pairsFailed.getMessage()
                        + " Valid values look like this: `--labels=\"key1=val1,key2=val2\"`");
            }
        }
    }

    private static Map<String, String> pairs(String text) {
        String s = text.length() > 1 && text.startsWith("\"") && text.endsWith("\"") ? text.substring(1, text.length() - 1) : text;
        Map<String, String> labels = new LinkedHashMap<>();
        if (s.isEmpty()) return labels;
        for (String pair : s.split(",", -1)) {
            String[] kv = pair.split("=", -1);
            if (kv.length != 2) throw new IllegalArgumentException("Label string is not a key-value pair.");
            labels.put(kv[0].strip(), kv[1].strip());
        }
        return labels;
    }

    /**
     * {@code --labels-file}: a flat YAML mapping of string keys to string values, one
     * {@code key: value} per line (quotes optional, comments and blank lines skipped).
     */
    static Map<String, String> fromFile(Path path) {
        String text;
        try {
            text = Files.readString(path);
        } catch (IOException e) {
            throw new IllegalArgumentException("The file at `--labels-file=" + path + "` cannot be read: " + e.getMessage());
        }
        Map<String, String> labels = new LinkedHashMap<>();
        int n = 0;
        for (String line : text.split("\n")) {
            n++;
            String l = line.strip();
            if (l.isEmpty() || l.startsWith("#") || l.equals("---")) continue;
            int colon = l.indexOf(": ");
            if (colon < 0 && l.endsWith(":")) colon = l.length() - 1;
            if (colon <= 0 || line.startsWith(" ") || line.startsWith("\t")) {
                throw new IllegalArgumentException("The file at `--labels-file=" + path + "` is not a valid YAML file, "
                        + "detailed error: line " + n + " is not `key: value` of a flat mapping. Valid values look like "
                        + "this: `--labels-file='gpu_type: A100\\nregion: us'`");
            }
            labels.put(unquote(l.substring(0, colon).strip()), unquote(l.substring(colon + 1).strip()));
        }
        return Labels.checked(labels);
    }

    private static String unquote(String s) {
        if (s.length() >= 2 && (s.startsWith("\"") && s.endsWith("\"") || s.startsWith("'") && s.endsWith("'"))) {
            return s.substring(1, s.length() - 1);
        }
        return s;
    }
}
