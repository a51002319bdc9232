package beam.cluster;

/** A placement group's state, Ray's names; the machine is drawn on {@link PlacementGroups}. */
public enum GroupState { PENDING, CREATED, RESCHEDULING, REMOVED }
