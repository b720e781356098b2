"""What a run returns: `RunResult`, and the calls waiting for approval."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from good_agent.core.approvals import Approved
from good_agent.types.errors import RunDeferredError
from good_agent.types.messages import AssistantMessage, Message
from good_agent.types.usage import RunUsage

OutputT = TypeVar("OutputT")


@dataclass(frozen=True, slots=True)
class DeferredCall:
    """A tool call waiting for approval.

    ``arguments`` are what the model sent; ``parameters`` what the tool would
    receive after the adapter chain, with every secret value hidden. ``digest`` is
    the `call_digest` of the call: [`approve`][good_agent.DeferredCall.approve]
    approves that exact call and no edited version of it.
    """

    call_id: str
    tool_name: str
    arguments: dict[str, Any]
    parameters: dict[str, Any]
    digest: str

    def approve(self) -> Approved:
        """The decision that runs exactly this call: ``approvals={call_id: pending.approve()}``."""
        return Approved(self.digest)


@dataclass(frozen=True, slots=True)
class RunResult(Generic[OutputT]):
    """The outcome of one run.

    [`output`][good_agent.RunResult.output] is the validated typed output (the
    answer text when the run has no output type). ``message`` is the final
    assistant message, ``new_messages`` every message this run added
    ([`all_messages`][good_agent.RunResult.all_messages]: the whole history), ``usage`` the
    totals over the run, ``deferred`` the calls waiting for approval (empty unless
    the run stopped for them). A run that stopped for approvals has no output:
    [`output_or_none`][good_agent.RunResult.output_or_none] is ``None`` and reading
    ``output`` raises [`RunDeferredError`][good_agent.RunDeferredError].
    """

    output_or_none: OutputT | None
    """The output, or ``None`` when the run stopped to wait for approvals."""
    message: AssistantMessage
    new_messages: list[Message]
    usage: RunUsage
    deferred: list[DeferredCall] = field(default_factory=list)
    history: list[Message] | None = field(default=None, repr=False, compare=False)
    """The conversation's whole history when the run ended (see
    [`all_messages`][good_agent.RunResult.all_messages])."""

    def all_messages(self) -> list[Message]:
        """The conversation's history as this run left it: the messages it started
        with, then ``new_messages`` (a copy: pass it as ``message_history=`` to go on)."""
        return list(self.history if self.history is not None else self.new_messages)

    @property
    def output(self) -> OutputT:
        """The output of the finished run.

        Raises [`RunDeferredError`][good_agent.RunDeferredError] when the run stopped
        to wait for approvals (``result.deferred``): resume it with
        ``agent.run(approvals=...)``, or read
        [`output_or_none`][good_agent.RunResult.output_or_none].
        """
        if self.deferred:
            ids = ", ".join(call.call_id for call in self.deferred)
            raise RunDeferredError(
                f"this run stopped to wait for approvals of {len(self.deferred)} tool "
                f"call(s) ({ids}), so it has no output: see result.deferred and resume "
                "with agent.run(approvals={call_id: pending.approve() | False | 'reason'}), "
                "or read result.output_or_none"
            )
        return self.output_or_none  # type: ignore[return-value]  # None only when deferred

    @property
    def is_deferred(self) -> bool:
        """Whether the run stopped to wait for approvals."""
        return bool(self.deferred)
