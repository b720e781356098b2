"""A :class:`ToolPlan`: how one tool looks to the model and how its calls travel back."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from good_agent.adapters.adapter import Signature, ToolAdapter, overrides
from good_agent.core.errors import GoodAgentError
from good_agent.core.messages import ToolResponse
from good_agent.tools.tool import Tool


async def _resolve(value: Any) -> Any:
    if inspect.isawaitable(value):
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
    interceptors: tuple[ToolAdapter, ...] = field(init=False)
    responders: tuple[ToolAdapter, ...] = field(init=False)

    def __post_init__(self) -> None:
        # Only adapters that replace a hook take part in it on each call.
        adapters = self.adapters
        object.__setattr__(self, "interceptors", _overriding(adapters, "intercept"))
        object.__setattr__(self, "responders", _overriding(adapters, "adapt_response"))

    @property
    def adapters(self) -> list[ToolAdapter]:
        """Every adapter applied to this tool, in forward (signature) order."""
        return [adapter for step in self.steps for adapter in step.adapters]

    async def unwrap(self, parameters: dict[str, Any], agent: Any) -> dict[str, Any]:
        """Translate the model's arguments back, outermost (lowest priority) step first."""
        name = self.tool.name
        params = parameters
        for step in reversed(self.steps):
            if len(step.adapters) == 1:
                params = step.adapters[0].adapt_parameters(name, params, agent)
                if not isinstance(params, dict):
                    params = await _resolve(params)
            else:
                params = await _unwrap_group(step, name, params, agent)
            if not isinstance(params, dict):
                raise GoodAgentError(
                    f"an adapter on tool '{name}' returned {type(params).__name__} "
                    "from adapt_parameters; it must return a dict"
                )
        return params

    async def intercept(self, parameters: dict[str, Any], agent: Any) -> ToolResponse | None:
        """Ask each adapter, highest priority first, whether it answers the call itself."""
        for adapter in self.interceptors:
            answer = await _resolve(adapter.intercept(self.tool.name, parameters, agent))
            if answer is not None:
                return answer if isinstance(answer, ToolResponse) else _bad(adapter, answer)
        return None

    async def adapt_response(self, response: ToolResponse, agent: Any) -> ToolResponse:
        """Adapt the response, highest priority first."""
        for adapter in self.responders:
            response = await _resolve(adapter.adapt_response(self.tool.name, response, agent))
        return response


def _overriding(adapters: list[ToolAdapter], hook: str) -> tuple[ToolAdapter, ...]:
    return tuple(a for a in adapters if overrides(a, hook))


def _bad(adapter: ToolAdapter, answer: Any) -> ToolResponse:
    raise GoodAgentError(
        f"{adapter.name}.intercept returned {type(answer).__name__}; "
        "it must return a ToolResponse or None"
    )


async def _unwrap_group(
    step: Step, name: str, params: dict[str, Any], agent: Any
) -> dict[str, Any]:
    every_owned = frozenset().union(*step.owned)
    result = {k: v for k, v in params.items() if k not in every_owned}
    outputs = []
    for adapter, owned in zip(step.adapters, step.owned, strict=True):
        others = every_owned - owned
        view = {k: v for k, v in params.items() if k not in others}
        out = await _resolve(adapter.adapt_parameters(name, view, agent))
        if not isinstance(out, dict):
            raise GoodAgentError(f"{adapter.name}.adapt_parameters must return a dict")
        outputs.append(out)
    # A parameter several members own takes the highest-priority member's value,
    # as its definition did in the merged signature.
    for out in reversed(outputs):
        result.update(out)
    return result
