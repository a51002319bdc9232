package beam.cluster;

/**
 * What the domain told a client, one record per {@link Client} event: domain tests assert on
 * these, in the domain's own terms. Which frame each becomes is dispatch's business
 * ({@code dispatch/FramedClient}) and is tested there.
 */
sealed interface ClientEvent {
    /** A worker's actor is to run this call. */
    record RunCall(String oid, String method, Forwarded call) implements ClientEvent {
    }

    /** A call's result, forwarded as its actor's worker sent it. */
    record CallResult(Forwarded result) implements ClientEvent {
    }

    /** A call that failed without reaching a result: the three ways the domain fails one. */
    sealed interface Failure extends ClientEvent {
        String oid();

        String message();
    }

    record ActorDied(String oid, String message) implements Failure {
    }

    record ActorUnschedulable(String oid, String message) implements Failure {
    }

    record NoSuchActor(String oid, String message) implements Failure {
    }

    record ActorLog(Forwarded log) implements ClientEvent {
    }

    record Warning(String message) implements ClientEvent {
    }

    record GroupReady(String groupId) implements ClientEvent {
    }

    record GroupRemoved(String groupId) implements ClientEvent {
    }

    record GroupWaiting(String groupId, String message) implements ClientEvent {
    }
}
