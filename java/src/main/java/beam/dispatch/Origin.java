package beam.dispatch;

/**
 * The node a client is attached to, as its hello reply reports it: the head for local
 * clients, the joined node for clients relayed from it.
 */
public record Origin(String nodeId, String nodeIp, String sessionDir) {
}
