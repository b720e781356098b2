"""A :class:`ToolPlan`: how one tool looks to the model and how its calls travel back."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from good_agent.adapters._adapter import Signature, ToolAdapter, overrides, takes_ctx
from good_agent.adapters._context import CallContext, CallNext
from good_agent.core._awaitable import is_awaitable
from good_agent.core.errors import GoodAgentError
from good_agent.core.messages import ToolResponse
from good_agent.tools.tool import Tool

_NOT_RUN = object()
"""Marks a step of :meth:`ToolPlan._unwrap_from` that has not run yet."""


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
    """Whether an ``adapt_response`` hook of this plan declares ``ctx``."""

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
        self, parameters: dict[str, Any], ctx: CallContext | None, agent: Any
    ) -> dict[str, Any] | Awaitable[dict[str, Any]]:
        """Translate the model's arguments back, outermost (lowest priority) step first.

        Returns the parameters themselves when every hook answered at once, else an
        awaitable of them. ``ctx`` may be ``None`` when no hook takes it
        (:attr:`unwrappers_take_ctx`).
        """
        name = self.tool.name
        params = parameters
        for position, (step, with_ctx) in enumerate(self.unwrappers):
            if len(step.adapters) > 1:
                return self._unwrap_from(position, params, _NOT_RUN, ctx, agent)
            adapter = step.adapters[0]
            if with_ctx[0]:
                produced = _with_ctx(adapter).adapt_parameters(name, params, agent, ctx=ctx)
            else:
                produced = adapter.adapt_parameters(name, params, agent)
            if not isinstance(produced, dict):
                return self._unwrap_from(position, params, produced, ctx, agent)
            params = produced
        return params

    async def _unwrap_from(
        self,
        position: int,
        params: dict[str, Any],
        produced: Any,
        ctx: CallContext | None,
        agent: Any,
    ) -> dict[str, Any]:
        """The rest of :meth:`unwrap` from the step at ``position``; ``produced`` is
        what that step returned (an awaitable, say), or ``_NOT_RUN``."""
        name = self.tool.name
        for step, with_ctx in self.unwrappers[position:]:
            if produced is not _NOT_RUN:
                params = await _resolve(produced)
                produced = _NOT_RUN
            elif len(step.adapters) == 1:
                adapter = step.adapters[0]
                if with_ctx[0]:
                    params = _with_ctx(adapter).adapt_parameters(name, params, agent, ctx=ctx)
                else:
                    params = adapter.adapt_parameters(name, params, agent)
                if not isinstance(params, dict):
                    params = await _resolve(params)
            else:
                params = await _unwrap_group(step, with_ctx, name, params, ctx, agent)
            if not isinstance(params, dict):
                raise GoodAgentError(
                    f"an adapter on tool '{name}' returned {type(params).__name__} "
                    "from adapt_parameters; it must return a dict"
                )
        return params

    def around(self, ctx: CallContext, innermost: CallNext) -> Awaitable[ToolResponse]:
        """Run the ``around_call`` hooks, highest priority outermost, around ``innermost``."""
        if not self.wrappers:
            return innermost(ctx)
        return _Next(self.wrappers, 0, innermost)(ctx)

    def adapt_response(
        self, response: ToolResponse, ctx: CallContext | None, agent: Any
    ) -> ToolResponse | Awaitable[ToolResponse]:
        """Adapt the response, highest priority first.

        Returns the response itself when every hook answered at once, else an
        awaitable of it. ``ctx`` may be ``None`` when no hook takes it
        (:attr:`responders_take_ctx`).
        """
        name = self.tool.name
        for position, (adapter, with_ctx) in enumerate(self.responders):
            if with_ctx:
                adapted = _with_ctx(adapter).adapt_response(name, response, agent, ctx=ctx)
            else:
                adapted = adapter.adapt_response(name, response, agent)
            if not isinstance(adapted, ToolResponse):
                return self._adapt_rest(adapted, position, ctx, agent)
            response = adapted
        return response

    async def _adapt_rest(
        self, pending: Any, position: int, ctx: CallContext | None, agent: Any
    ) -> ToolResponse:
        """The rest of :meth:`adapt_response`, from the hook at ``position`` that
        returned an awaitable (or something that is not a response)."""
        name = self.tool.name
        response = _response_of(self.responders[position][0], await _resolve(pending))
        for adapter, with_ctx in self.responders[position + 1 :]:
            if with_ctx:
                adapted = _with_ctx(adapter).adapt_response(name, response, agent, ctx=ctx)
            else:
                adapted = adapter.adapt_response(name, response, agent)
            if not isinstance(adapted, ToolResponse):
                adapted = _response_of(adapter, await _resolve(adapted))
            response = adapted
        return response


def _response_of(adapter: ToolAdapter, value: Any) -> ToolResponse:
    if not isinstance(value, ToolResponse):
        raise GoodAgentError(
            f"{adapter.name}.adapt_response must return a ToolResponse, got {_describe(value)}"
        )
    return value


class _Next:
    """Runs the wrapper at ``index``, whose ``call_next`` is the next wrapper's
    :class:`_Next` or, for the last wrapper, the innermost step (the tool)."""

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
