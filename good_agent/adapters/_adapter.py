"""The `ToolAdapter` base class, its metadata and conflict strategies."""

from __future__ import annotations

import inspect
from collections.abc import Hashable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from good_agent.types.errors import GoodAgentError
from good_agent.types.messages import ToolResponse

if TYPE_CHECKING:
    from good_agent.adapters._context import CallContext, CallNext
    from good_agent.tools.tool import Tool

Signature = dict[str, Any]
"""A tool definition in OpenAI function format."""


class ConflictStrategy(StrEnum):
    """What happens when two adapters touch the same parameter of the same tool."""

    CHAIN = "chain"
    """Both apply, in priority order (the default)."""
    EXCLUSIVE = "exclusive"
    """The conflict is an error, every time:
    [`AdapterConflictError`][good_agent.AdapterConflictError]."""
    PRIORITY = "priority"
    """Only the higher-priority adapter applies to that tool, in all three directions."""
    MERGE = "merge"
    """Both transform the same input signature; the results are merged."""


@dataclass(frozen=True, slots=True)
class AdapterMetadata:
    """Which parameters an adapter changes, adds and removes on one tool."""

    modified_params: set[str] = field(default_factory=set)
    added_params: set[str] = field(default_factory=set)
    removed_params: set[str] = field(default_factory=set)

    @property
    def touched(self) -> set[str]:
        """Every parameter named in this metadata."""
        return self.modified_params | self.added_params | self.removed_params


class AdapterConflictError(GoodAgentError):
    """Two adapters conflict on a tool and one of them demands exclusivity."""

    def __init__(
        self, tool_name: str, params: set[str], first: ToolAdapter, second: ToolAdapter
    ) -> None:
        self.tool_name = tool_name
        self.params = set(params)
        self.adapters = (first.name, second.name)
        listed = ", ".join(sorted(params))
        super().__init__(
            f"adapters {first.name} (priority {first.priority}) and {second.name} "
            f"(priority {second.priority}) conflict on tool '{tool_name}' "
            f"(parameter(s): {listed}) and one of them is EXCLUSIVE"
        )


def properties_of(signature: Signature) -> dict[str, Any]:
    """The ``properties`` of a signature's parameters (empty if none)."""
    params = signature.get("function", {}).get("parameters") or {}
    props = params.get("properties") or {}
    return dict(props)


def required_of(signature: Signature) -> list[str]:
    """The ``required`` list of a signature's parameters."""
    params = signature.get("function", {}).get("parameters") or {}
    return list(params.get("required") or [])


def diff_signatures(before: Signature, after: Signature) -> AdapterMetadata:
    """Describe the parameter changes between two signatures."""
    old, new = properties_of(before), properties_of(after)
    old_req, new_req = set(required_of(before)), set(required_of(after))
    common = old.keys() & new.keys()
    modified = {k for k in common if old[k] != new[k] or ((k in old_req) != (k in new_req))}
    return AdapterMetadata(
        modified_params=modified,
        added_params=set(new) - set(old),
        removed_params=set(old) - set(new),
    )


class ToolAdapter:
    """Changes how tools look to the model and translates the model's calls back.

    Subclass and override the hooks you need. ``adapt_parameters`` and
    ``adapt_response`` may be ``async``; an override of either may add a keyword
    parameter ``ctx: CallContext | None = None`` to receive the call's
    [`CallContext`][good_agent.CallContext] (hooks written without it are called
    exactly as before). [`around_call`][good_agent.ToolAdapter.around_call] wraps the tool itself.

    Args:
        component: The component that owns this adapter (may be ``None``).
        priority: Higher runs first on signatures and responses, last on parameters.
        conflict_strategy: What to do when another adapter touches the same parameter.
    """

    def __init__(
        self,
        component: Any = None,
        priority: int = 100,
        conflict_strategy: ConflictStrategy = ConflictStrategy.CHAIN,
    ) -> None:
        self.component = component
        self.priority = priority
        self.conflict_strategy = conflict_strategy
        self.agent: Any = None

    @property
    def name(self) -> str:
        """A readable name for error messages: the class name."""
        return type(self).__name__

    def should_adapt(self, tool: Tool, agent: Any) -> bool:
        """Whether this adapter applies to ``tool`` now. Asked at every signature generation."""
        return True

    def signature_key(self, tool: Tool, agent: Any) -> Hashable:
        """A value that changes whenever this adapter would now adapt ``tool`` differently.

        Asked with [`should_adapt`][good_agent.ToolAdapter.should_adapt] at every signature
        generation; a new value
        recomputes the cached signature. Return ``None`` (the default) when the
        adaptation depends only on the tool. The citation manager returns the number
        of known sources, since the valid index range is part of the schema.
        """
        return None

    def analyze_transformation(self, tool: Tool, signature: Signature) -> AdapterMetadata:
        """Describe what [`adapt_signature`][good_agent.ToolAdapter.adapt_signature] does to
        ``signature``.

        The default runs [`adapt_signature`][good_agent.ToolAdapter.adapt_signature] (with the agent
        the adapter is
        registered on) and compares; override it when that is expensive.
        """
        return diff_signatures(signature, self.adapt_signature(tool, signature, self.agent))

    def adapt_signature(self, tool: Tool, signature: Signature, agent: Any) -> Signature:
        """Return the signature the model should see. Must not mutate ``signature``."""
        return signature

    def adapt_parameters(self, tool_name: str, parameters: dict[str, Any], agent: Any) -> Any:
        """Translate the model's arguments back towards the tool's own parameters.

        Runs lowest priority first (the reverse of
        [`adapt_signature`][good_agent.ToolAdapter.adapt_signature]). An
        override may add a keyword parameter ``ctx: CallContext | None = None`` to
        receive the call's [`CallContext`][good_agent.CallContext].
        """
        return parameters

    def adapt_response(self, tool_name: str, response: ToolResponse, agent: Any) -> Any:
        """Adapt the response before the model sees it (highest priority first).

        Runs on every response of the call: the tool's, an error, or an answer
        given by an [`around_call`][good_agent.ToolAdapter.around_call]. An override may add a
        keyword parameter
        ``ctx: CallContext | None = None`` to receive the call's context.
        """
        return response

    async def around_call(self, ctx: CallContext, call_next: CallNext) -> ToolResponse:
        """Wrap the tool like middleware: the highest priority adapter is outermost.

        Runs after every adapter has unwrapped the parameters (``ctx.parameters``
        are exactly what the tool receives) and before
        [`adapt_response`][good_agent.ToolAdapter.adapt_response].
        ``await call_next(ctx)`` runs the adapters below and the tool, and returns
        its response; code around it runs before and after the tool. Return
        ``ctx.respond(value)`` or ``ctx.fail(message)`` without calling
        ``call_next`` to answer instead of the tool, raise
        [`ToolError`][good_agent.ToolError] to refuse the call, or pass
        ``ctx.with_parameters(...)`` to change what the tool receives.
        """
        return await call_next(ctx)

    def merge_signature(
        self, base: Signature, results: list[tuple[ToolAdapter, Signature]]
    ) -> Signature:
        """Merge the signatures MERGE-conflicting adapters made from the same ``base``.

        ``results`` is in priority order. Default: removals applied, added properties
        and ``required`` united, a property modified by several takes the
        highest-priority definition.
        """
        props = properties_of(base)
        required = required_of(base)
        claimed: set[str] = set()
        for _adapter, result in results:
            out_props, out_req = properties_of(result), required_of(result)
            for key in set(props) - set(out_props):
                if key in properties_of(base):
                    props.pop(key, None)
                    required = [r for r in required if r != key]
            for key, schema in out_props.items():
                if key in claimed:
                    continue
                if key not in properties_of(base) or properties_of(base)[key] != schema:
                    props[key] = schema
                    claimed.add(key)
            required.extend(r for r in out_req if r not in required and r in props)
        merged = {**base, "function": dict(base["function"])}
        parameters = dict(base["function"].get("parameters") or {"type": "object"})
        parameters["properties"] = props
        parameters["required"] = required
        merged["function"]["parameters"] = parameters
        return merged

    def __repr__(self) -> str:
        return f"{self.name}(priority={self.priority}, strategy={self.conflict_strategy.value})"


def overrides(adapter: ToolAdapter, hook: str) -> bool:
    """Whether ``adapter``'s class replaces the base class's ``hook``."""
    return getattr(type(adapter), hook) is not getattr(ToolAdapter, hook)


_TAKES_CTX: dict[tuple[type, str], bool] = {}


def takes_ctx(adapter: ToolAdapter, hook: str) -> bool:
    """Whether ``adapter``'s ``hook`` accepts the call context as ``ctx``.

    Hooks written against the original signature (no ``ctx``) are called without it.
    """
    key = (type(adapter), hook)
    known = _TAKES_CTX.get(key)
    if known is None:
        parameters = inspect.signature(getattr(adapter, hook)).parameters
        known = "ctx" in parameters or any(
            p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()
        )
        _TAKES_CTX[key] = known
    return known
