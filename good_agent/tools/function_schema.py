"""Build a tool's argument model and JSON schema from a Python function's signature."""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from types import UnionType
from typing import Any, Union, get_args, get_origin, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, create_model
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from good_agent.tools.docstrings import parse_docstring
from good_agent.types.errors import ToolDefinitionError


class ToolJsonSchema(GenerateJsonSchema):
    """JSON schema generation without the ``title`` noise pydantic adds to every field."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        """Never set per-field titles."""
        return False

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        """Drop the model-level title as well."""
        value = super().model_schema(schema)
        value.pop("title", None)
        return value


@dataclass(frozen=True, slots=True)
class FunctionSchema:
    """What was read off a function: its argument model, schema and injections.

    ``injected`` maps parameter names to what the agent passes for them
    (``"agent"``, ``"call"`` or ``"run"``); those parameters are hidden from the schema.
    """

    description: str
    parameters: dict[str, Any]
    model: type[BaseModel]
    injected: dict[str, str]
    takes_self: bool


def injection_kind(annotation: Any) -> str | None:
    """Return what the agent injects for a parameter of this type, or ``None``.

    ``Agent``, ``ToolCall``, ``RunContext`` (also parameterized:
    ``RunContext[MyDeps]``) and their subclasses are injected, also when written as
    ``Agent | None``.
    """
    kind = getattr(get_origin(annotation) or annotation, "__tool_injection__", None)
    if isinstance(kind, str):
        return kind
    if get_origin(annotation) in (Union, UnionType):
        kinds = {injection_kind(arg) for arg in get_args(annotation) if arg is not type(None)}
        if len(kinds) == 1:
            return kinds.pop()
    return None


def function_schema(
    function: Callable[..., Any], *, name: str, description: str | None = None
) -> FunctionSchema:
    """Read ``function``'s signature, type hints and docstring into a `FunctionSchema`."""
    try:
        signature = inspect.signature(function)
        hints = get_type_hints(function, include_extras=True)
    except (NameError, TypeError, ValueError) as exc:
        raise ToolDefinitionError(f"cannot read the signature of tool '{name}': {exc}") from exc
    summary, arg_docs = parse_docstring(function.__doc__)
    fields: dict[str, Any] = {}
    injected: dict[str, str] = {}
    params = list(signature.parameters.values())
    takes_self = bool(params) and params[0].name in ("self", "cls")
    for param in params[1:] if takes_self else params:
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ToolDefinitionError(
                f"tool '{name}' cannot take *{param.name}: every argument needs a name and a type"
            )
        annotation = hints.get(param.name, Any)
        kind = injection_kind(annotation)
        if kind is not None:
            injected[param.name] = kind
            continue
        if param.name not in hints:
            warnings.warn(
                f"tool '{name}': parameter '{param.name}' has no type annotation, so its "
                "schema is {} (any JSON value) and the model is told nothing about it; "
                "annotate it",
                UserWarning,
                stacklevel=_caller_level(),
            )
        default = ... if param.default is inspect.Parameter.empty else param.default
        doc = arg_docs.get(param.name)
        fields[param.name] = (annotation, Field(default, description=doc) if doc else default)
    model_name = "".join(part.title() for part in name.replace("-", "_").split("_")) or "Tool"
    try:
        model = create_model(
            f"{model_name}Arguments",
            __config__=ConfigDict(extra="forbid", arbitrary_types_allowed=False),
            **fields,
        )
        parameters = model.model_json_schema(schema_generator=ToolJsonSchema)
    except Exception as exc:
        for field, spec in fields.items():
            _check_field(name, field, spec)
        raise ToolDefinitionError(f"cannot build a JSON schema for tool '{name}': {exc}") from exc
    parameters.setdefault("properties", {})
    return FunctionSchema(
        description=description if description is not None else summary,
        parameters=parameters,
        model=model,
        injected=injected,
        takes_self=takes_self,
    )


def _check_field(tool: str, field: str, spec: tuple[Any, Any]) -> None:
    """Raise a [`ToolDefinitionError`][good_agent.ToolDefinitionError] naming ``field``
    when its type has no JSON schema (a socket, a callable...), with what to do instead."""
    annotation = spec[0]
    try:
        fields: dict[str, Any] = {field: spec}
        create_model("Probe", __config__=ConfigDict(extra="forbid"), **fields)
        TypeAdapter(annotation).json_schema(schema_generator=ToolJsonSchema)
    except Exception as exc:
        shown = _type_name(annotation)
        raise ToolDefinitionError(
            f"tool '{tool}': parameter '{field}' has type '{shown}', which has no JSON "
            "schema, and the model can only send JSON. Describe what the model should send "
            "with a pydantic model (or a dataclass or TypedDict of JSON fields), reach "
            "the object through a RunContext dependency (ctx: RunContext[Deps], then "
            "ctx.deps), or make it an injected parameter (typed Agent, ToolCall or RunContext)"
        ) from exc


def _caller_level() -> int:
    """The ``stacklevel`` that points a warning at the code defining the tool."""
    frame = inspect.currentframe()
    level = 0  # this frame is not on the stack ``warnings.warn`` counts
    while frame is not None and frame.f_globals.get("__name__", "").startswith("good_agent."):
        frame = frame.f_back
        level += 1
    return level


def _type_name(annotation: Any) -> str:
    """``socket.socket``, ``Callable[[int], int]``: a type as its code would write it."""
    if isinstance(annotation, type):
        module = annotation.__module__
        name = annotation.__qualname__
        return name if module == "builtins" else f"{module}.{name}"
    return repr(annotation).replace("collections.abc.", "").replace("typing.", "")
