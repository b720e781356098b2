"""`TestModel`: a model double that needs no script."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import BaseModel

from good_agent.core.output import OUTPUT_TOOL_NAME, WRAPPER_KEY
from good_agent.models.base import ModelRequest, ModelResponse
from good_agent.testing.schema_values import SchemaValueError, value_for_schema
from good_agent.testing.scripted import RecordingModel, StreamedReply
from good_agent.types.messages import AssistantMessage, ToolCall, ToolMessage, UserMessage
from good_agent.types.usage import Usage

__all__ = ["TestModel"]


class TestModel(RecordingModel):
    """A [`LanguageModel`][good_agent.LanguageModel] that calls the offered tools, then answers.

    On the first request after a user message it calls every offered tool once (or
    the ones named in ``call_tools``), all in one turn, with arguments generated
    from each tool's model-visible JSON schema (after adapters:
    [`value_for_schema`][good_agent.testing.value_for_schema]). Once the tools have answered it
    gives the final answer: in a typed run, the output tool called with a value
    generated from the output schema (or a JSON text answer matching it for
    ``output_mode="native"`` and ``"prompted"``); otherwise ``custom_output_text``, or a JSON object
    of each called tool's result. Every request is recorded in `requests`, as
    [`ScriptedModel`][good_agent.testing.ScriptedModel] does.

    Args:
        call_tools: ``"all"`` or the names of the tools to call.
        custom_output_text: The text answer (default: the tools' results as JSON).
        custom_output_args: The typed output to give instead of a generated one (a
            value of the output type, or its JSON form).
        tool_args: Arguments to send instead of generated ones, by tool name (for a
            schema no simple value satisfies, such as a strict ``pattern``).
        name: The model name.

    Example:
        ```python
        model = TestModel()
        result = await Agent(model=model, tools=[search]).run("go", output_type=Report)
        assert model.requests[0].tool_names == ["search", "final_result"]
        ```
    """

    __test__ = False  # not a pytest test class, despite its name

    def __init__(
        self,
        *,
        call_tools: Literal["all"] | Iterable[str] = "all",
        custom_output_text: str | None = None,
        custom_output_args: Any = None,
        tool_args: Mapping[str, dict[str, Any]] | None = None,
        name: str = "test",
    ) -> None:
        super().__init__(name=name)
        self.call_tools: Literal["all"] | frozenset[str] = (
            "all" if call_tools == "all" else frozenset(call_tools)
        )
        self.custom_output_text = custom_output_text
        self.custom_output_args = custom_output_args
        self.tool_args = dict(tool_args or {})
        self._ids = itertools.count(1)

    def _call(self, name: str, arguments: dict[str, Any]) -> ToolCall:
        return ToolCall(id=f"test_call_{next(self._ids)}", name=name, arguments=arguments)

    async def _reply(self, request: ModelRequest) -> ModelResponse | StreamedReply:
        results = _tool_results(request.messages)
        if results is None and request.tool_choice != "none":
            calls = [
                self._call(name, self._arguments(name, signature))
                for name, signature in _offered(request.tools).items()
                if name != OUTPUT_TOOL_NAME
                and (self.call_tools == "all" or name in self.call_tools)
            ]
            if calls:
                return ModelResponse(tool_calls=calls, finish_reason="tool_calls", usage=Usage())
        output_tool = _offered(request.tools).get(OUTPUT_TOOL_NAME)
        if output_tool is not None:
            schema = _parameters(output_tool)
            call = self._call(OUTPUT_TOOL_NAME, self._output(schema, wrapped=_is_wrapper(schema)))
            return ModelResponse(tool_calls=[call], finish_reason="tool_calls", usage=Usage())
        response_format = request.response_format or {}
        answer_schema = (response_format.get("json_schema") or {}).get("schema")
        if not isinstance(answer_schema, dict):
            answer_schema = request.output_schema  # a prompted answer's schema
        if isinstance(answer_schema, dict):
            text = json.dumps(self._output(answer_schema, wrapped=False), ensure_ascii=False)
        elif self.custom_output_text is not None:
            text = self.custom_output_text
        elif results:
            text = json.dumps(results, ensure_ascii=False)
        else:
            text = "success (no tool calls)"
        return ModelResponse(content=text, finish_reason="stop", usage=Usage())

    def _arguments(self, name: str, signature: dict[str, Any]) -> dict[str, Any]:
        if name in self.tool_args:
            return dict(self.tool_args[name])
        try:
            value = value_for_schema(_parameters(signature))
        except SchemaValueError as error:
            raise SchemaValueError(
                f"TestModel cannot make arguments for tool '{name}': {error}; "
                f"pass TestModel(tool_args={{'{name}': {{...}}}})"
            ) from None
        return value if isinstance(value, dict) else {}

    def _output(self, schema: dict[str, Any], *, wrapped: bool) -> Any:
        custom = self.custom_output_args
        if custom is None:
            return value_for_schema(schema)
        if isinstance(custom, BaseModel):
            custom = custom.model_dump(mode="json")
        return {WRAPPER_KEY: custom} if wrapped else custom


def _offered(tools: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {tool["function"]["name"]: tool for tool in tools}


def _parameters(signature: dict[str, Any]) -> dict[str, Any]:
    parameters = signature["function"].get("parameters")
    return parameters if isinstance(parameters, dict) else {"type": "object"}


def _is_wrapper(schema: dict[str, Any]) -> bool:
    return list(schema.get("properties") or {}) == [WRAPPER_KEY]


def _tool_results(messages: list[Any]) -> dict[str, str] | None:
    """The results of the tool calls since the last user message (``None``: no calls yet).

    A repeated tool name keeps its last result.
    """
    results: dict[str, str] | None = None
    for message in reversed(messages):
        if isinstance(message, UserMessage):
            break
        if isinstance(message, AssistantMessage) and message.tool_calls:
            results = results or {}
        if isinstance(message, ToolMessage):
            results = results or {}
            results.setdefault(message.tool_name, message.content)
    if results is not None:
        return dict(reversed(list(results.items())))
    return None
