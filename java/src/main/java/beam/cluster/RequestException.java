package beam.cluster;

import beam.util.ErrorKind;

/**
 * A well-formed request that cannot be honoured (unknown id, name taken, never fits).
 * Becomes an error reply of its {@link ErrorKind} (named on the wire by its one table); the
 * connection stays open.
 */
public final class RequestException extends Exception {
    private final ErrorKind kind;

    public RequestException(ErrorKind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public static RequestException value(String message) {
        return new RequestException(ErrorKind.INVALID_REQUEST, message);
    }

    public ErrorKind kind() {
        return kind;
    }
}
