package beam.http;

import java.util.Map;
import beam.codec.FrameCodec;

/**
 * One GET path of the HTTP face: what it answers and whether it is open to anyone who can
 * connect ({@code open}: only the health probes, which KubeRay runs without credentials) or
 * needs the cluster token when the face is bound beyond loopback.
 */
public record Route(String path, boolean open, Handler handler) {
    /** Answers one request; throws {@link HttpError} for a 4xx naming what was wrong. */
    @FunctionalInterface
    public interface Handler {
        Reply handle(Map<String, String> query) throws HttpError;
    }

    /** A whole response, made before anything is written (so an error can still change the status). */
    public record Reply(int status, String contentType, byte[] body) {
        public static Reply text(int status, String text) {
            return new Reply(status, "text/plain; charset=utf-8", text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }

        public static Reply json(Object tree) {
            try {
                return new Reply(200, "application/json", FrameCodec.json().writeValueAsBytes(tree));
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalStateException("a state view failed to serialize", e);
            }
        }
    }

    /** A request the face refuses, with the status and a message for the caller. */
    public static final class HttpError extends Exception {
        private final int status;

        public HttpError(int status, String message) {
            super(message);
            this.status = status;
        }

        public int status() {
            return status;
        }
    }
}
