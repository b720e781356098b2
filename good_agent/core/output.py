"""Typed run output: the schema the model is given and the validation of its answer.

One `OutputSpec` per run holds the output type and how the model delivers
it (`OutputMode`):

- ``"tool"``: an output tool (`OUTPUT_TOOL_NAME`) whose parameters are the
  output schema; the model ends the run by calling it. It is not one of the
  agent's tools: the adapter chain and tool events never see it. In structured
  mode the tool becomes a strict variant of the reply schema, so the answer is
  held to the schema by the provider's strict ``response_format``.
- ``"native"``: a strict ``response_format`` (JSON schema) and a JSON text answer.
- ``"prompted"``: the schema in the system prompt and a JSON text answer, parsed
  and validated (for text-only models).

``"auto"`` picks ``"prompted"`` for models in a prompt-based tool-calling mode and
``"tool"`` otherwise.

A union with ``str`` (``str | Report``) lets the model answer in plain text in
every mode: in ``"tool"`` mode the output tool is offered without being forced
and the model is told it may answer in text; in ``"prompted"`` mode a text
answer that is not a JSON object or array is the ``str``; in ``"native"`` mode
the schema's ``response`` is either a string or the structured answer.

An output function (``output_type=make_report``) is an output type whose
parameters are the output schema: the validated arguments are passed to it (a
[`RunContext`][good_agent.RunContext] parameter is injected) and its return value
is the run's output; a [`ModelRetry`][good_agent.ModelRetry] raised in it goes back
to the model and counts against the output retries.
"""

from __future__ import annotations

import inspect
import json
from types import UnionType
from typing import TYPE_CHECKING, Any, Literal, Union, get_args, get_origin

from pydantic import TypeAdapter, ValidationError

from good_agent.core.instructions import with_system_text
from good_agent.models.traits import takes_response_format, tool_calling_mode
from good_agent.providers.strategies.base import ToolCallingMode
from good_agent.tools.tool import Tool
from good_agent.types.errors import ModelConfigError, ToolArgumentsError, ToolRetry
from good_agent.types.messages import Message

if TYPE_CHECKING:
    from good_agent.core.run_context import RunContext

OutputMode = Literal["auto", "tool", "native", "prompted"]
"""How a typed output reaches the run; see `good_agent.core.output`."""

EndStrategy = Literal["early", "exhaustive"]
"""What happens to the other tool calls of the turn that gave the final output:
``"early"`` answers each with a result saying it was not run, ``"exhaustive"`` runs
them (their results are kept in the history) before the run ends."""

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


class OutputRejected(OutputInvalid):
    """An output validator or output function asked the model to try again
    (``ModelRetry``); the message is for the model. ``by`` names who asked."""

    def __init__(self, problems: list[str], by: str = "an output validator") -> None:
        super().__init__(problems)
        self.by = by


def is_text_type(output_type: Any) -> bool:
    """Whether ``output_type`` asks for plain text (``None`` or ``str``)."""
    return output_type is None or output_type is str


def is_output_function(output_type: Any) -> bool:
    """Whether ``output_type`` is a function (or bound method) to call with the
    model's answer."""
    return inspect.isfunction(output_type) or inspect.ismethod(output_type)


def split_text(output_type: Any) -> tuple[bool, Any]:
    """``(True, rest)`` for a union with ``str`` (``rest``: the union of the other
    members), else ``(False, output_type)``."""
    if get_origin(output_type) not in (Union, UnionType):
        return False, output_type
    members = get_args(output_type)
    if str not in members:
        return False, output_type
    rest = [member for member in members if member is not str]
    return True, rest[0] if len(rest) == 1 else Union[tuple(rest)]  # noqa: UP007


class OutputSpec:
    """The output type of a run and how the model is asked for it.

    Args:
        output_type: A pydantic model, dataclass, TypedDict, primitive, ``list[...]``,
            a union of models (with ``str``: a text answer is accepted too) or an
            output function.
        mode: How the answer is delivered; ``"auto"`` follows ``model``'s mode.
        model: The model of the run (for ``"auto"``).
    """

    def __init__(self, output_type: Any, mode: OutputMode = "auto", model: Any = None) -> None:
        self.type = output_type
        self.allows_text, structured = split_text(output_type)
        """Whether a plain text answer is the output (a union with ``str``)."""
        self.function: Tool | None = None
        """The output function, as a tool whose parameters are the output schema."""
        if is_output_function(output_type):
            self.function = Tool.from_function(output_type, name=OUTPUT_TOOL_NAME)
            structured = Any
        if mode == "auto":
            mode = "prompted" if tool_calling_mode(model) in _PROMPTED_MODES else "tool"
        elif mode == "native" and not takes_response_format(model):
            raise ModelConfigError(
                f"output_mode='native' needs a response_format, which {model.model_name} "
                "does not support: use output_mode='tool' or 'prompted'"
            )
        self.mode: OutputMode = mode
        # In native mode the one JSON answer carries a text answer too.
        self.adapter: TypeAdapter[Any] = TypeAdapter(
            output_type if self.allows_text and mode == "native" else structured
        )
        if self.function is not None:
            schema = self.function.parameters
            self.wrapped = False
        else:
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
        description = self.function.description if self.function else schema.get("description")
        self.description = str(description or "").strip()

    @property
    def name(self) -> str:
        """A readable name of the output type."""
        return str(getattr(self.type, "__name__", None) or self.type)

    @property
    def schema(self) -> dict[str, Any]:
        """The JSON schema of an answer given as JSON text (prompted and native modes)."""
        return self.parameters if self.mode == "native" else self._answer_schema()

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
        from good_agent.providers.schema.strict import to_strict_schema  # on first use

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
        if self.mode == "tool" and self.allows_text:
            return (
                "Give your final answer in plain text, or call the "
                f"{OUTPUT_TOOL_NAME} tool to give it as structured data."
            )
        if self.mode != "prompted":
            return None
        schema = json.dumps(self._answer_schema(), ensure_ascii=False)
        if self.allows_text:
            return (
                "Give your final answer in plain text, or as structured data: then reply "
                "with only one JSON value (no other text, no code fence) that matches this "
                "JSON schema:\n" + schema
            )
        return (
            "When you give your final answer, reply with only one JSON value (no other "
            "text, no code fence) that matches this JSON schema:\n" + schema
        )

    def _answer_schema(self) -> dict[str, Any]:
        if not self.wrapped:
            return self.parameters
        inner = dict(self.parameters["properties"][WRAPPER_KEY])
        if "$defs" in self.parameters:
            inner["$defs"] = self.parameters["$defs"]
        return inner

    def with_instructions(self, messages: list[Message]) -> list[Message]:
        """``messages`` with `instructions` added to the system message (a copy)."""
        return with_system_text(messages, self.instructions())

    def from_arguments(self, arguments: dict[str, Any]) -> Any:
        """Validate the output tool's arguments; raise `OutputInvalid`.

        For an output function: the arguments it will be called with (see
        `complete`)."""
        if self.function is not None:
            return self._function_arguments(arguments)
        value: Any = arguments
        if self.wrapped:
            if WRAPPER_KEY not in arguments:
                raise OutputInvalid([f"{WRAPPER_KEY}: field required"])
            value = arguments[WRAPPER_KEY]
        return self._validate(value)

    def from_text(self, text: str | None) -> Any:
        """Parse and validate a JSON text answer; raise `OutputInvalid`.

        With a union with ``str``: the text itself in ``"tool"`` mode, and in the
        other modes unless the whole answer is a JSON object or array (then it is
        validated as the structured answer)."""
        if self.allows_text:
            if self.mode == "tool":
                return text or ""
            value = _whole_json(text or "")
            if not isinstance(value, dict | list):
                return text or ""
        else:
            value = _json_in(text or "")
        if value is _MISSING:
            raise OutputInvalid(["the answer is not a JSON value"])
        if self.function is not None:
            if not isinstance(value, dict):
                raise OutputInvalid(["the answer is not a JSON object"])
            return self._function_arguments(value)
        try:
            return self._validate(value)
        except OutputInvalid:
            if self.wrapped and isinstance(value, dict) and set(value) == {WRAPPER_KEY}:
                return self._validate(value[WRAPPER_KEY])
            raise

    def partial(self, value: Any) -> Any:
        """The output type validated from ``value``, the JSON of an answer still
        arriving (`pydantic_core.from_json` with ``allow_partial``); ``None``
        when no prefix of it validates yet.

        Validated with pydantic's partial mode (an incomplete last item of a list or
        mapping is left out); when that fails (a model's required field that has not
        arrived), the last value still arriving is dropped, deepest first, and the
        rest tried again, a bounded number of times.
        """
        if self.function is not None:
            return None  # the function runs once, on the whole answer
        if self.allows_text and isinstance(value, str):
            return value
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

    def _function_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        assert self.function is not None
        try:
            return self.function.validate(arguments)
        except ToolArgumentsError as error:
            raise OutputInvalid(error.problems) from None

    async def complete(self, value: Any, run: RunContext[Any]) -> Any:
        """The output of a validated answer: ``value`` itself, or for an output
        function what it returns when called with ``value`` (its arguments; ``run``
        is injected). A ``ModelRetry`` it raises is an `OutputRejected`."""
        if self.function is None:
            return value
        try:
            return await self.function.run(value, {"run": run, "agent": run.agent})
        except ToolRetry as retry:
            raise OutputRejected([str(retry)], by="the output function") from None

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
"""How many trimmed values `OutputSpec.partial` tries before giving up."""


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


def _whole_json(text: str) -> Any:
    """The JSON value that is all of ``text`` (or all of its one fenced block)."""
    stripped = text.strip()
    if stripped.startswith("```") and stripped.endswith("```") and len(stripped) > 6:
        body_start = stripped.find("\n")
        if body_start != -1:
            stripped = stripped[body_start + 1 : -3].strip()
    try:
        return json.loads(stripped)
    except ValueError:
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
