"""Ray's exception tree (ray.exceptions in Ray 2.58), same names, bases and messages.

vLLM catches these by class (GetTimeoutError, RayActorError, ActorDiedError, RayTaskError,
RayChannelError), and user code catches the *cause* of a task error (``except ValueError``),
so the class chains and ``RayTaskError.as_instanceof_cause()`` match Ray exactly; the MROs
are checked against ``ray-2.58-shapes.json`` in tests/unit.
"""

from __future__ import annotations

import os
from typing import Optional, Type

_CYAN = "\x1b[36m"  # colorama.Fore.CYAN, as Ray prints the task header
_RESET = "\x1b[39m"  # colorama.Fore.RESET


class RayError(Exception):
    """Super class of all ray exception types."""


class CrossLanguageError(RayError):
    """Raised from another language."""


class TaskCancelledError(RayError):
    """Raised when this task is cancelled."""

    def __init__(self, task_id=None, error_message: Optional[str] = None):
        self.task_id = task_id
        self.error_message = error_message

    def __str__(self):
        msg = ""
        if self.task_id:
            msg = "Task: " + str(self.task_id) + " was cancelled. "
        if self.error_message:
            msg += self.error_message
        return msg


class RayTaskError(RayError):
    """A task (an actor method here) raised; ``cause`` is the user's exception."""

    def __init__(self, function_name, traceback_str, cause, proctitle=None, pid=None,
                 ip=None, actor_repr=None, actor_id=None):
        self.proctitle = proctitle or f"ray::{function_name}"
        self.pid = pid or os.getpid()
        self.ip = ip or "127.0.0.1"
        self.function_name = function_name
        self.traceback_str = traceback_str
        self.actor_repr = actor_repr
        self._actor_id = actor_id
        self.cause = cause
        self.args = (function_name, traceback_str, cause, proctitle, pid, ip)
        assert traceback_str is not None

    def make_dual_exception_type(self) -> Type:
        """A type inheriting from both RayTaskError and the cause's class."""
        cause_cls = self.cause.__class__
        error_msg = str(self)

        class cls(RayTaskError, cause_cls):
            def __init__(self, cause):
                self.cause = cause
                self.args = (cause,)

            def __getattr__(self, name):
                return getattr(self.cause, name)

            def __str__(self):
                return error_msg

        name = f"RayTaskError({cause_cls.__name__})"
        cls.__name__ = name
        cls.__qualname__ = name
        return cls

    def as_instanceof_cause(self):
        """An exception that is an instance of both RayTaskError and the cause's class."""
        cause_cls = self.cause.__class__
        if issubclass(RayTaskError, cause_cls):
            return self
        try:
            return self.make_dual_exception_type()(self.cause)
        except TypeError:
            return self

    def __str__(self):
        lines = self.traceback_str.strip().split("\n")
        out = []
        for line in lines:
            if line.startswith("Traceback "):
                head = f"{_CYAN}{self.proctitle}(){_RESET} (pid={self.pid}, ip={self.ip}"
                if self.actor_repr:
                    head += f", actor_id={self._actor_id}, repr={self.actor_repr})"
                else:
                    head += ")"
                out.append(head)
            else:
                out.append(line)
        return "\n".join(out)


class LocalRayletDiedError(RayError):
    def __str__(self):
        return "The task's local raylet died. Check raylet.out for more information."


class WorkerCrashedError(RayError):
    def __str__(self):
        return ("The worker died unexpectedly while executing this task. "
                "Check python-core-worker-*.log files for more information.")


class RayActorError(RayError):
    """The actor is dead or unavailable; subclasses say which."""

    BASE_ERROR_MSG = "The actor experienced an error before finishing this task."

    def __init__(self, actor_id: str = None, error_msg: str = BASE_ERROR_MSG,
                 actor_init_failed: bool = False, preempted: bool = False):
        self.actor_id = actor_id
        self.error_msg = error_msg
        self._actor_init_failed = actor_init_failed
        self._preempted = preempted
        self.args = (actor_id, error_msg)

    def __str__(self) -> str:
        return self.error_msg

    def __reduce__(self):
        return (_rebuild_actor_error,
                (type(self), self.actor_id, self.error_msg, self._actor_init_failed, self._preempted))

    @property
    def preempted(self) -> bool:
        return self._preempted

    @property
    def actor_init_failed(self) -> bool:
        return self._actor_init_failed


def _rebuild_actor_error(cls, actor_id, error_msg, init_failed, preempted):
    exc = cls.__new__(cls)
    RayActorError.__init__(exc, actor_id, error_msg, init_failed, preempted)
    return exc


class ActorDiedError(RayActorError):
    """The actor died before finishing the task. beam passes the daemon's message as ``cause``."""

    BASE_ERROR_MSG = "The actor died unexpectedly before finishing this task."

    def __init__(self, cause=None, actor_id: Optional[str] = None):
        init_failed = False
        if cause is None:
            msg = ActorDiedError.BASE_ERROR_MSG
        elif isinstance(cause, RayTaskError):
            init_failed = True
            actor_id = actor_id or cause._actor_id
            msg = f"The actor died because of an error raised in its creation task, {cause}"
        else:
            msg = str(cause)
        super().__init__(actor_id, msg, init_failed, False)

    @staticmethod
    def from_task_error(task_error: RayTaskError):
        return ActorDiedError(task_error)


class ActorUnavailableError(RayActorError):
    """The actor is temporarily unavailable but may be available later."""

    def __init__(self, error_message: str, actor_id=None):
        if isinstance(actor_id, bytes):
            actor_id = actor_id.hex()
        msg = (f"The actor {actor_id} is unavailable: {error_message}. The task may or may"
               "not have been executed on the actor.")
        super().__init__(actor_id, msg, False, False)


class RaySystemError(RayError):
    """Ray (here: beam) encountered a system error."""

    def __init__(self, client_exc, traceback_str=None):
        self.client_exc = client_exc
        self.traceback_str = traceback_str
        self.args = (client_exc,)

    def __str__(self):
        msg = f"System error: {self.client_exc}"
        if self.traceback_str:
            msg += f"\ntraceback: {self.traceback_str}"
        return msg


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
