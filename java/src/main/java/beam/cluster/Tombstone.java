package beam.cluster;

/**
 * How a dead actor ended, all that is kept of it once its record leaves the table: a late
 * call gets the same error as a call made while the record was there.
 *
 * @param deathMessage  the ActorDiedError text
 * @param unschedulable it could never be placed, so its calls raise Ray's ActorUnschedulableError
 */
record Tombstone(String deathMessage, boolean unschedulable) {
    /** Fails a call of {@code caller} to this actor with the error of how it ended. */
    void failCall(Client caller, String oid) {
        if (unschedulable) caller.actorUnschedulable(oid, NodeAffinity.UNSCHEDULABLE);
        else caller.actorDied(oid, deathMessage);
    }
}
