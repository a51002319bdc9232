package beam.cluster;

/**
 * A batch of an actor's output: what the domain keeps of it (the tail of its text, stderr
 * marked) and the message its owner is sent as it came.
 *
 * @param stderr  whether the text came from stderr (else stdout)
 * @param text    the output, UTF-8
 * @param message the same output, forwarded to the actor's owner
 */
public record ActorOutput(boolean stderr, byte[] text, Forwarded message) {
}
