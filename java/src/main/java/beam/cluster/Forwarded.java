package beam.cluster;

/**
 * A message the domain hands on to a client as it came, without reading it: a caller's
 * call, a worker's result, an actor's output. The layer that reads the wire wraps what it
 * read ({@code dispatch/WireFrame}) and the client that writes it unwraps it, so the
 * domain routes it without knowing frames.
 */
public interface Forwarded {
    /** A call the domain makes itself, with no arguments (the {@code __ray_terminate__} of an actor no one holds). */
    Forwarded NO_ARGUMENTS = new Forwarded() {
        @Override
        public String toString() {
            return "a call without arguments";
        }
    };
}
