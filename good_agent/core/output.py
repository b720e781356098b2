"""Typed run output: the schema the model is given and the validation of its answer.

One :class:`OutputSpec` per run holds the output type and how the model delivers
it (:data:`OutputMode`):

- ``"tool"``: an output tool (:data:`OUTPUT_TOOL_NAME`) whose parameters are the
  output schema; the model ends the run by calling it. It is not one of the
  agent's tools: the adapter chain and tool events never see it. In structured
  mode the tool becomes a strict variant of the reply schema, so the answer is
  held to the schema by the provider's strict ``response_format``.
- ``"native"``: a strict ``response_format`` (JSON schema) and a JSON text answer.
- ``"prompted"``: the schema in the system prompt and a JSON text answer, parsed
  and validated (for text-only models).

``"auto"`` picks ``"prompted"`` for models in a prompt-based tool-calling mode and
``"tool"`` otherwise.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import TypeAdapter, ValidationError

from good_agent.core.instructions import with_system_text
from good_agent.providers.schema.strict import to_strict_schema
from good_agent.providers.strategies.base import ToolCallingMode
from good_agent.types.errors import ModelConfigError
from good_agent.types.messages import Message

OutputMode = Literal["auto", "tool", "native", "prompted"]
"""How a typed output reaches the run; see `good_agent.core.output`."""

OUTPUT_TOOL_NAME = "final_result"
"""The name of the output tool offered in ``"tool"`` mode."""

WRAPPER_KEY = "response"
"""The property that carries a non-object output (a list, a union, a primitive)."""

_PROMPTED_MODES = (ToolCallingMode.VALIDATED, ToolCallingMode.PARSED)


class OutputInvalid(Exception):
    """An answer did not match the output type; ``problems`` are written for the model."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def model_mode(model: Any) -> ToolCallingMode | None:
    """The tool-calling mode of ``model`` when it has one (a fallback chain: its first)."""
    models = getattr(model, "models", None)
    if isinstance(models, list | tuple) and models:
        return model_mode(models[0])
    strategy = getattr(model, "tool_strategy", None)
    mode = getattr(strategy, "mode", None)
    return mode if isinstance(mode, ToolCallingMode) else None


def supports_response_format(model: Any) -> bool:
    """Whether ``model``'s wire format takes a ``response_format`` (unknown: assumed)."""
    models = getattr(model, "models", None)
    if isinstance(models, list | tuple) and models:
        return all(supports_response_format(m) for m in models)
    codec = getattr(getattr(model, "tool_strategy", None), "codec", None)
    return bool(getattr(codec, "supports_response_format", True))


def is_text_type(output_type: Any) -> bool:
    """Whether ``output_type`` asks for plain text (``None`` or ``str``)."""
    return output_type is None or output_type is str


class OutputSpec:
    """The output type of a run and how the model is asked for it.

    Args:
        output_type: A pydantic model, dataclass, TypedDict, primitive, ``list[...]``
            or a union of models.
        mode: How the answer is delivered; ``"auto"`` follows ``model``'s mode.
        model: The model of the run (for ``"auto"``).
    """

    def __init__(self, output_type: Any, mode: OutputMode = "auto", model: Any = None) -> None:
        self.type = output_type
        self.adapter: TypeAdapter[Any] = TypeAdapter(output_type)
        if mode == "auto":
            mode = "prompted" if model_mode(model) in _PROMPTED_MODES else "tool"
        elif mode == "native" and not supports_response_format(model):
            raise ModelConfigError(
                f"output_mode='native' needs a response_format, which {model.model_name} "
                "does not support: use output_mode='tool' or 'prompted'"
            )
        self.mode: OutputMode = mode
        schema = self.adapter.json_schema()
        self.wrapped = schema.get("type") != "object" or "properties" not in schema
        if self.wrapped:
            defs = schema.pop("$defs", None)
            wrapper: dict[str, Any] = {
                "type": "object",
                "properties": {WRAPPER_KEY: schema},
                "required": [WRAPPER_KEY],
            }
            if defs:
                wrapper["$defs"] = defs
            self.parameters = wrapper
        else:
            self.parameters = schema
        self.description = str(schema.get("description") or "").strip()

    @property
    def name(self) -> str:
        """A readable name of the output type."""
        return str(getattr(self.type, "__name__", None) or self.type)

    def tool_signature(self) -> dict[str, Any]:
        """The output tool in OpenAI function format."""
        description = "Give the final answer. Call this once, with the answer as arguments."
        if self.description:
            description = f"{description} {self.description}"
        return {
            "type": "function",
            "function": {
                "name": OUTPUT_TOOL_NAME,
                "description": description,
                "parameters": self.parameters,
            },
        }

    def response_format(self) -> dict[str, Any]:
        """The ``response_format`` of ``"native"`` mode (strict when the schema allows)."""
        result = to_strict_schema(self.parameters, None)
        return {
            "type": "json_schema",
            "json_schema": {
                "name": "final_result",
                "schema": result.schema,
                "strict": result.strict,
            },
        }

    def instructions(self) -> str | None:
        """Text added to the system prompt of each request, if the mode needs it."""
        if self.mode != "prompted":
            return None
        schema = self._answer_schema()
        return (
            "When you give your final answer, reply with only one JSON value (no other "
            "text, no code fence) that matches this JSON schema:\n"
            + json.dumps(schema, ensure_ascii=False)
        )

    def _answer_schema(self) -> dict[str, Any]:
        if not self.wrapped:
            return self.parameters
        inner = dict(self.parameters["properties"][WRAPPER_KEY])
        if "$defs" in self.parameters:
            inner["$defs"] = self.parameters["$defs"]
        return inner

    def with_instructions(self, messages: list[Message]) -> list[Message]:
        """``messages`` with :meth:`instructions` added to the system message (a copy)."""
        return with_system_text(messages, self.instructions())

    def from_arguments(self, arguments: dict[str, Any]) -> Any:
        """Validate the output tool's arguments; raise :class:`OutputInvalid`."""
        value: Any = arguments
        if self.wrapped:
            if WRAPPER_KEY not in arguments:
                raise OutputInvalid([f"{WRAPPER_KEY}: field required"])
            value = arguments[WRAPPER_KEY]
        return self._validate(value)

    def from_text(self, text: str | None) -> Any:
        """Parse and validate a JSON text answer; raise :class:`OutputInvalid`."""
        value = _json_in(text or "")
        if value is _MISSING:
            raise OutputInvalid(["the answer is not a JSON value"])
        try:
            return self._validate(value)
        except OutputInvalid:
            if self.wrapped and isinstance(value, dict) and set(value) == {WRAPPER_KEY}:
                return self._validate(value[WRAPPER_KEY])
            raise

    def partial(self, value: Any) -> Any:
        """The output type validated from ``value``, the JSON of an answer still
        arriving (:func:`pydantic_core.from_json` with ``allow_partial``); ``None``
        when no prefix of it validates yet.

        Validated with pydantic's partial mode (an incomplete last item of a list or
        mapping is left out); when that fails (a model's required field that has not
        arrived), the last value still arriving is dropped, deepest first, and the
        rest tried again, a bounded number of times.
        """
        candidate = value
        for _ in range(_PARTIAL_ATTEMPTS):
            try:
                return self.adapter.validate_python(candidate, experimental_allow_partial=True)
            except ValidationError:
                candidate = _without_last(candidate)
                if candidate is _MISSING:
                    return None
        return None

    def _validate(self, value: Any) -> Any:
        try:
            return self.adapter.validate_python(value)
        except ValidationError as exc:
            raise OutputInvalid(validation_problems(exc)) from None

    def retry_prompt(self, problems: list[str], *, in_text: bool = False) -> str:
        """The message that sends validation problems back to the model, with the one
        instruction of this output mode. ``in_text``: the model answered in text where
        the mode wants the output tool."""
        listed = "\n".join(f"- {problem}" for problem in problems)
        return f"The answer does not match the required {self.name} schema:\n{listed}\n" + (
            self.how_to_retry(in_text=in_text)
        )

    def how_to_retry(self, *, in_text: bool = False) -> str:
        """The one instruction for a corrected answer in this mode. ``in_text``: the
        model answered in text where the mode wants the output tool."""
        if self.mode == "tool":
            if in_text:
                return f"Call the {OUTPUT_TOOL_NAME} tool to give your final answer."
            return f"Call the {OUTPUT_TOOL_NAME} tool again with corrected arguments."
        if self.mode == "native":
            return "Reply again with corrected JSON."
        return "Reply again with only the corrected JSON value."


def validation_problems(error: ValidationError) -> list[str]:
    """Each pydantic error as ``location: message``."""
    problems = []
    for item in error.errors(include_url=False):
        loc = ".".join(str(part) for part in item["loc"]) or "value"
        problems.append(f"{loc}: {item['msg']}")
    return problems


_MISSING: Any = object()

_PARTIAL_ATTEMPTS = 16
"""How many trimmed values :meth:`OutputSpec.partial` tries before giving up."""


def _without_last(value: Any) -> Any:
    """``value`` without its last leaf, the part of a streamed JSON value that
    arrives last (``_MISSING`` when nothing is left)."""
    if isinstance(value, dict) and value:
        key = next(reversed(value))
        inner = _without_last(value[key])
        if inner is _MISSING:
            return {k: v for k, v in value.items() if k != key}
        return {**value, key: inner}
    if isinstance(value, list) and value:
        inner = _without_last(value[-1])
        return value[:-1] if inner is _MISSING else [*value[:-1], inner]
    return _MISSING


def _json_in(text: str) -> Any:
    """The JSON value in ``text``: all of it, a fenced block, or the outermost brackets.

    Each attempt is one linear scan (``str.find`` / ``rfind``), never a regex.
    """
    stripped = text.strip()
    candidates = [stripped]
    if "```" in stripped:
        start = stripped.find("```")
        body_start = stripped.find("\n", start)
        end = stripped.find("```", body_start + 1) if body_start != -1 else -1
        if body_start != -1 and end != -1:
            candidates.append(stripped[body_start + 1 : end].strip())
    spans = []
    for opener, closer in (("{", "}"), ("[", "]")):
        first, last = stripped.find(opener), stripped.rfind(closer)
        if first != -1 and last > first:
            spans.append((first, stripped[first : last + 1]))
    candidates += [span for _, span in sorted(spans)]  # the outermost bracket first
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    return _MISSING
