package beam.cluster;

/**
 * A well-formed request that cannot be honoured (unknown id, name taken, never fits).
 * Becomes an error reply whose {@code kind} names the Python exception to raise; the
 * connection stays open.
 */
public final class RequestException extends Exception {
    private final String kind;

    public RequestException(String kind, String message) {
        super(message);
        this.kind = kind;
    }

    public static RequestException value(String message) {
        return new RequestException("ValueError", message);
    }

    public String kind() {
        return kind;
    }
}
