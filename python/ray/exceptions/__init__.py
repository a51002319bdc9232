"""Ray's exception tree (ray.exceptions in Ray 2.60), same names, bases and messages.

vLLM catches these by class (GetTimeoutError, RayActorError, ActorDiedError, RayTaskError,
RayChannelError), and user code catches the *cause* of a task error (``except ValueError``),
so the class chains and ``RayTaskError.as_instanceof_cause()`` match Ray exactly; the MROs
are checked against ``ray-2.60-shapes.json`` in tests/unit.

The task, actor and system errors are defined in _core.py, the rest here; every class is
``ray.exceptions.<Name>`` (its ``__module__``), as in Ray, so it pickles by that name.
"""

from __future__ import annotations

from ray.exceptions._core import (  # noqa: F401 (exported)
    RayError, CrossLanguageError, TaskCancelledError, RayTaskError, LocalRayletDiedError,
    WorkerCrashedError, RayActorError, ActorDiedError, ActorUnavailableError, RaySystemError,
)


class UserCodeException(RayError):
    pass


class ObjectStoreFullError(RayError):
    pass


class OutOfDiskError(RayError):
    pass


class OutOfMemoryError(RayError):
    def __init__(self, message):
        self.message = message
        self.args = (message,)

    def __str__(self):
        return self.message


class NodeDiedError(RayError):
    def __init__(self, message):
        self.message = message
        self.args = (message,)

    def __str__(self):
        return self.message


class ObjectLostError(RayError):
    """The object is lost (beam: owned by another process, or its owner is gone)."""

    def __init__(self, object_ref_hex, owner_address=None, call_site=""):
        self.object_ref_hex = object_ref_hex
        self.owner_address = owner_address
        self.call_site = call_site or ""
        self.args = (object_ref_hex, owner_address, self.call_site)

    def __str__(self):
        return (f"Failed to retrieve object {self.object_ref_hex}. "
                + (self.call_site or "The object is not available in this process."))


class ObjectFetchTimedOutError(ObjectLostError):
    pass


class RpcError(RayError):
    def __init__(self, message, rpc_code=None):
        self.message = message
        self.rpc_code = rpc_code
        self.args = (message,)

    def __str__(self):
        return self.message


class ReferenceCountingAssertionError(ObjectLostError, AssertionError):
    pass


class ObjectFreedError(ObjectLostError):
    pass


class OwnerDiedError(ObjectLostError):
    pass


class ObjectReconstructionFailedError(ObjectLostError):
    pass


class ObjectReconstructionFailedMaxAttemptsExceededError(ObjectLostError):
    pass


class ObjectReconstructionFailedLineageEvictedError(ObjectLostError):
    pass


class GetTimeoutError(RayError, TimeoutError):
    """A call to ray.get / ray.wait timed out."""


class PlasmaObjectNotAvailable(RayError):
    pass


class AsyncioActorExit(RayError):
    pass


class RuntimeEnvSetupError(RayError):
    def __init__(self, error_message: str = None):
        self.error_message = error_message
        self.args = (error_message,)

    def __str__(self):
        msgs = ["Failed to set up runtime environment."]
        if self.error_message:
            msgs.append(self.error_message)
        return "\n".join(msgs)


class TaskPlacementGroupRemoved(RayError):
    def __str__(self):
        return "The placement group corresponding to this task has been removed."


class ActorPlacementGroupRemoved(RayError):
    def __str__(self):
        return "The placement group corresponding to this Actor has been removed."


class PendingCallsLimitExceeded(RayError):
    pass


class TaskUnschedulableError(RayError):
    def __init__(self, error_message: str):
        self.error_message = error_message
        self.args = (error_message,)

    def __str__(self):
        return f"The task is not schedulable: {self.error_message}"


class ActorUnschedulableError(RayError):
    def __init__(self, error_message: str):
        self.error_message = error_message
        self.args = (error_message,)

    def __str__(self):
        return f"The actor is not schedulable: {self.error_message}"


class ObjectRefStreamEndOfStreamError(RayError):
    pass


class OufOfBandObjectRefSerializationException(RayError):
    pass


class UnserializableException(RayError):
    """Stands in for a user exception that could not be pickled in the worker."""

    def __init__(self, original_stack_trace: str):
        self._original_stack_trace = original_stack_trace
        self.args = (original_stack_trace,)

    def __str__(self):
        return ("Failed to deserialize exception. Refer to "
                "https://docs.ray.io/en/latest/ray-core/objects/serialization.html"
                "#custom-serializers-for-exceptions for more information.\n"
                f"Original exception:\n{self._original_stack_trace}")


class AuthenticationError(RayError):
    pass


class RayChannelError(RaySystemError):
    """Compiled-graph channel error (compiled graphs are not supported by beam)."""


class RayChannelTimeoutError(RayChannelError, TimeoutError):
    pass


class RayCgraphCapacityExceeded(RaySystemError):
    pass


RAY_EXCEPTION_TYPES = [
    PlasmaObjectNotAvailable, RayError, RayTaskError, WorkerCrashedError, RayActorError,
    ObjectStoreFullError, ObjectLostError, ObjectFetchTimedOutError,
    ReferenceCountingAssertionError, ObjectReconstructionFailedError,
    ObjectReconstructionFailedMaxAttemptsExceededError,
    ObjectReconstructionFailedLineageEvictedError, OwnerDiedError, GetTimeoutError,
    AsyncioActorExit, RuntimeEnvSetupError, TaskPlacementGroupRemoved,
    ActorPlacementGroupRemoved, PendingCallsLimitExceeded, LocalRayletDiedError,
    TaskUnschedulableError, ActorDiedError, ActorUnschedulableError, ActorUnavailableError,
    RayChannelError, RayChannelTimeoutError, OufOfBandObjectRefSerializationException,
    RayCgraphCapacityExceeded, UnserializableException,
]

for _cls in (RayError, CrossLanguageError, TaskCancelledError, RayTaskError, LocalRayletDiedError,
             WorkerCrashedError, RayActorError, ActorDiedError, ActorUnavailableError, RaySystemError):
    _cls.__module__ = __name__
del _cls
