"""A `ToolPlan`: how one tool looks to the model and how its calls travel back."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from good_agent._util.awaitable import is_awaitable
from good_agent.adapters._adapter import Signature, ToolAdapter, overrides, takes_ctx
from good_agent.adapters._context import CallContext, CallNext
from good_agent.tools.tool import Tool
from good_agent.types.errors import GoodAgentError
from good_agent.types.messages import ToolResponse

_NOT_RUN = object()
"""Marks a step of `ToolPlan._finish_unwrap` that has not run yet."""


async def _resolve(value: Any) -> Any:
    if is_awaitable(value):
        return await value
    return value


@dataclass(frozen=True, slots=True)
class Step:
    """One stage of a chain: a single adapter, or a MERGE group sharing one input.

    ``owned`` holds, per adapter, the parameters it touches; in a group each adapter
    unwraps only its own parameters.
    """

    adapters: tuple[ToolAdapter, ...]
    owned: tuple[frozenset[str], ...]


@dataclass(frozen=True, slots=True)
class ToolPlan:
    """The adapted signature of a tool and the steps that produced it (forward order).

    ``validator`` checks the model's arguments against the adapted signature; it is
    ``None`` when no adapter changed the tool's own parameters, since the tool's own
    validation then covers the same schema.
    """

    tool: Tool
    signature: Signature
    steps: tuple[Step, ...]
    validator: Callable[[Any], list[str]] | None
    unwrappers: tuple[tuple[Step, tuple[bool, ...]], ...] = field(init=False)
    wrappers: tuple[ToolAdapter, ...] = field(init=False)
    responders: tuple[tuple[ToolAdapter, bool], ...] = field(init=False)
    responders_take_ctx: bool = field(init=False)
    """Whether an ``adapt_response`` hook of this plan declares ``ctx``."""
    unwrappers_take_ctx: bool = field(init=False)
    """Whether an ``adapt_parameters`` hook of this plan declares ``ctx``."""

    def __post_init__(self) -> None:
        # Only adapters that replace a hook take part in it on each call; whether a
        # hook takes the call context is decided once, here.
        adapters = self.adapters
        unwrappers = tuple(
            (step, tuple(takes_ctx(a, "adapt_parameters") for a in step.adapters))
            for step in reversed(self.steps)
            if len(step.adapters) > 1 or overrides(step.adapters[0], "adapt_parameters")
        )
        object.__setattr__(self, "unwrappers", unwrappers)
        object.__setattr__(self, "unwrappers_take_ctx", any(any(flags) for _, flags in unwrappers))
        object.__setattr__(
            self, "wrappers", tuple(a for a in adapters if overrides(a, "around_call"))
        )
        object.__setattr__(
            self,
            "responders",
            tuple(
                (a, takes_ctx(a, "adapt_response"))
                for a in adapters
                if overrides(a, "adapt_response")
            ),
        )
        object.__setattr__(
            self, "responders_take_ctx", any(with_ctx for _, with_ctx in self.responders)
        )

    @property
    def adapters(self) -> list[ToolAdapter]:
        """Every adapter applied to this tool, in forward (signature) order."""
        return [adapter for step in self.steps for adapter in step.adapters]

    def unwrap(
        self, parameters: dict[str, Any], ctx: CallContext | None, agent: Any, start: int = 0
    ) -> dict[str, Any] | Awaitable[dict[str, Any]]:
        """Translate the model's arguments back, outermost (lowest priority) step first
        (from the step at ``start``).

        Returns the parameters themselves when every hook answered at once, else an
        awaitable of them. ``ctx`` may be ``None`` when no hook takes it
        ([`unwrappers_take_ctx`][good_agent.ToolPlan.unwrappers_take_ctx]).
        """
        name = self.tool.name
        unwrappers = self.unwrappers
        params = parameters
        for position in range(start, len(unwrappers)):
            step, with_ctx = unwrappers[position]
            if len(step.adapters) > 1:
                return self._finish_unwrap(position, params, _NOT_RUN, ctx, agent)
            adapter = step.adapters[0]
            if with_ctx[0]:
                produced = _with_ctx(adapter).adapt_parameters(name, params, agent, ctx=ctx)
            else:
                produced = adapter.adapt_parameters(name, params, agent)
            if not isinstance(produced, dict):
                return self._finish_unwrap(position, params, produced, ctx, agent)
            params = produced
        return params

    async def _finish_unwrap(
        self,
        position: int,
        params: dict[str, Any],
        produced: Any,
        ctx: CallContext | None,
        agent: Any,
    ) -> dict[str, Any]:
        """The step at ``position``, which answered later (``produced``) or is a MERGE
        group (``_NOT_RUN``: it runs here), then the steps after it."""
        step, with_ctx = self.unwrappers[position]
        name = self.tool.name
        if produced is _NOT_RUN:
            result = await _unwrap_group(step, with_ctx, name, params, ctx, agent)
        else:
            result = await _resolve(produced)
        if not isinstance(result, dict):
            raise GoodAgentError(
                f"an adapter on tool '{name}' returned {type(result).__name__} "
                "from adapt_parameters; it must return a dict"
            )
        rest = self.unwrap(result, ctx, agent, position + 1)
        return rest if isinstance(rest, dict) else await rest

    def around(self, ctx: CallContext, innermost: CallNext) -> Awaitable[ToolResponse]:
        """Run the ``around_call`` hooks, highest priority outermost, around ``innermost``."""
        if not self.wrappers:
            return innermost(ctx)
        return _Next(self.wrappers, 0, innermost)(ctx)

    def adapt_response(
        self, response: ToolResponse, ctx: CallContext | None, agent: Any, start: int = 0
    ) -> ToolResponse | Awaitable[ToolResponse]:
        """Adapt the response, highest priority first (from the hook at ``start``).

        Returns the response itself when every hook answered at once, else an
        awaitable of it. ``ctx`` may be ``None`` when no hook takes it
        ([`responders_take_ctx`][good_agent.ToolPlan.responders_take_ctx]).
        """
        name = self.tool.name
        responders = self.responders
        for position in range(start, len(responders)):
            adapter, with_ctx = responders[position]
            if with_ctx:
                adapted = _with_ctx(adapter).adapt_response(name, response, agent, ctx=ctx)
            else:
                adapted = adapter.adapt_response(name, response, agent)
            if not isinstance(adapted, ToolResponse):
                return self._finish_response(position, adapted, ctx, agent)
            response = adapted
        return response

    async def _finish_response(
        self, position: int, pending: Any, ctx: CallContext | None, agent: Any
    ) -> ToolResponse:
        """The hook at ``position``, which answered later (``pending``), then the rest."""
        response = _response_of(self.responders[position][0], await _resolve(pending))
        rest = self.adapt_response(response, ctx, agent, position + 1)
        return rest if isinstance(rest, ToolResponse) else await rest


def _response_of(adapter: ToolAdapter, value: Any) -> ToolResponse:
    if not isinstance(value, ToolResponse):
        raise GoodAgentError(
            f"{adapter.name}.adapt_response must return a ToolResponse, got {_describe(value)}"
        )
    return value


class _Next:
    """Runs the wrapper at ``index``, whose ``call_next`` is the next wrapper's
    `_Next` or, for the last wrapper, the innermost step (the tool)."""

    __slots__ = ("index", "innermost", "wrappers")

    def __init__(self, wrappers: tuple[ToolAdapter, ...], index: int, innermost: CallNext) -> None:
        self.wrappers, self.index, self.innermost = wrappers, index, innermost

    async def __call__(self, ctx: CallContext) -> ToolResponse:
        wrappers, index = self.wrappers, self.index
        adapter = wrappers[index]
        # The last wrapper's call_next is the innermost step itself.
        after = index + 1
        following = (
            self.innermost if after == len(wrappers) else _Next(wrappers, after, self.innermost)
        )
        response = await adapter.around_call(ctx, following)
        if not isinstance(response, ToolResponse) or response.tool_call_id != ctx.call.id:
            raise GoodAgentError(
                f"{adapter.name}.around_call must return the ToolResponse of call "
                f"'{ctx.call.id}' (build an answer with ctx.respond() or ctx.fail()), "
                f"got {_describe(response)}"
            )
        return response


def _with_ctx(adapter: ToolAdapter) -> Any:
    """``adapter``, whose hook overrides declare the optional ``ctx`` keyword."""
    return adapter


def _describe(value: Any) -> str:
    if isinstance(value, ToolResponse):
        return f"a response to call '{value.tool_call_id}'"
    return type(value).__name__


async def _unwrap_group(
    step: Step,
    with_ctx: tuple[bool, ...],
    name: str,
    params: dict[str, Any],
    ctx: CallContext | None,
    agent: Any,
) -> dict[str, Any]:
    every_owned = frozenset().union(*step.owned)
    result = {k: v for k, v in params.items() if k not in every_owned}
    outputs = []
    for adapter, owned, wants_ctx in zip(step.adapters, step.owned, with_ctx, strict=True):
        others = every_owned - owned
        view = {k: v for k, v in params.items() if k not in others}
        if wants_ctx:
            produced = _with_ctx(adapter).adapt_parameters(name, view, agent, ctx=ctx)
        else:
            produced = adapter.adapt_parameters(name, view, agent)
        out = await _resolve(produced)
        if not isinstance(out, dict):
            raise GoodAgentError(f"{adapter.name}.adapt_parameters must return a dict")
        outputs.append(out)
    # A parameter several members own takes the highest-priority member's value,
    # as its definition did in the merged signature.
    for out in reversed(outputs):
        result.update(out)
    return result
