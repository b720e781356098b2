from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from providers_fixtures import HISTORY, TOOLS

from good_agent.providers.modes import get_adapter
from good_agent.providers.profiles import ProfileRegistry, get_profile, load_profiles
from good_agent.providers.strategies import (
    NativeStrategy,
    PromptedStrategy,
    StructuredStrategy,
    ToolCallingMode,
    ValidatedStrategy,
)
from good_agent.providers.strategies.structured import reply_schema
from good_agent.providers.strategies.validation import tools_by_name

EXPECTED = {
    "gpt-4o-mini": (NativeStrategy, "openai_chat"),
    "gpt-4.1-nano": (NativeStrategy, "openai_chat"),
    "o1-preview": (ValidatedStrategy, "openai_chat"),
    "o3-mini": (NativeStrategy, "openai_chat"),
    "openai/gpt-oss-20b": (NativeStrategy, "openai_chat"),
    "gpt-3.5-turbo": (NativeStrategy, "openai_chat"),
    "gpt-4-turbo": (NativeStrategy, "openai_chat"),
    "claude-3-5-haiku": (NativeStrategy, "anthropic_messages"),
    "gemini-2.5-flash": (NativeStrategy, "gemini"),
    "mistral-large-latest": (NativeStrategy, "openai_chat"),
    "llama3.1": (NativeStrategy, "openai_chat"),
    "qwen2.5-coder": (NativeStrategy, "openai_chat"),
    "deepseek-chat": (NativeStrategy, "openai_chat"),
    "openai/gpt-4o": (NativeStrategy, "openai_chat"),
    "anthropic/claude-3.7-sonnet": (NativeStrategy, "openai_chat"),
    "google/gemini-2.0-flash": (NativeStrategy, "openai_chat"),
    "meta-llama/llama-3.3-70b": (NativeStrategy, "openai_chat"),
    "mistralai/mixtral-8x7b": (NativeStrategy, "openai_chat"),
    "phi3": (ValidatedStrategy, "openai_chat"),
    "anthropic:claude-sonnet-4-6": (NativeStrategy, "anthropic_messages"),
    "ollama:qwen2.5": (NativeStrategy, "ollama"),
    "ollama:phi3": (ValidatedStrategy, "ollama"),
    "openai:gpt-4o": (NativeStrategy, "openai_chat"),
    "google:gemini-2.5-pro": (NativeStrategy, "gemini"),
    "openai-responses:gpt-4.1": (NativeStrategy, "openai_responses"),
}


@pytest.mark.parametrize("model", sorted(EXPECTED))
def test_get_adapter_for_documented_names(model: str) -> None:
    cls, codec = EXPECTED[model]
    adapter = get_adapter(model)
    assert type(adapter) is cls
    assert adapter.codec.name == codec
    assert ":" not in adapter.model or model.count(":") > 1


@pytest.mark.parametrize(
    ("mode", "cls"),
    [
        (ToolCallingMode.NATIVE, NativeStrategy),
        ("structured", StructuredStrategy),
        (ToolCallingMode.VALIDATED, ValidatedStrategy),
        (ToolCallingMode.PARSED, PromptedStrategy),
    ],
)
def test_explicit_mode_overrides(mode: ToolCallingMode | str, cls: type) -> None:
    assert type(get_adapter("phi3", mode)) is cls
    assert type(get_adapter("claude-3-opus", mode)) is cls


def test_user_rules_and_toml(tmp_path: Path) -> None:
    registry = ProfileRegistry()
    registry.register("phi*", mode="native")
    assert get_profile("phi3", registry).mode is ToolCallingMode.NATIVE
    config = tmp_path / "profiles.toml"
    config.write_text(
        '[[profile]]\npattern = "gpt-4o*"\nmode = "native"\nsupports_parallel = false\n'
    )
    assert load_profiles(config, registry) == 1
    profile = get_profile("gpt-4o-mini", registry)
    assert profile.mode is ToolCallingMode.NATIVE and not profile.supports_parallel
    assert get_profile("gpt-4o-mini").mode is ToolCallingMode.NATIVE
    with pytest.raises(ValueError, match="unknown profile fields"):
        registry.register("x", colour="red")


def test_structured_schema_is_strict_with_object_root() -> None:
    schema = reply_schema(TOOLS)
    Draft202012Validator.check_schema(schema)
    assert schema["type"] == "object" and "anyOf" not in schema
    variants = schema["properties"]["action"]["anyOf"]
    assert len(variants) == 4
    names = [v["properties"]["tool"]["enum"][0] for v in variants[:2]]
    assert names == ["get_weather", "math.factorial"]
    validator = Draft202012Validator(schema)
    ok = {"action": {"tool": "math.factorial", "arguments": {"n": 3}, "scratchpad": None}}
    assert validator.is_valid(ok)
    assert validator.is_valid({"action": {"answer": "hi", "scratchpad": None}})
    assert not validator.is_valid({"action": {"tool": "math.factorial", "arguments": {}}})
    only_tool = reply_schema(TOOLS, {"type": "function", "function": {"name": "get_weather"}})
    assert len(only_tool["properties"]["action"]["anyOf"]) == 1


def _chat_reply(content: str) -> dict[str, object]:
    return {
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ]
    }


def test_structured_round_trip_payloads() -> None:
    adapter = get_adapter("gpt-4o-mini", "structured")
    body = adapter.format_request(TOOLS, HISTORY, tool_choice="auto")
    assert "tools" not in body
    assert body["response_format"]["json_schema"]["strict"] is True
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["system", "user", "assistant", "user"]
    assert json.loads(body["messages"][2]["content"])[0]["action"]["tool"] == "get_weather"
    assert "failed: Error: service down" in body["messages"][3]["content"]
    call_reply = _chat_reply(
        json.dumps(
            {
                "action": {
                    "tool": "get_weather",
                    "arguments": {"city": "Oslo", "unit": None},
                    "scratchpad": "hm",
                }
            }
        )
    )
    payload = adapter.extract_tool_call(call_reply, TOOLS)
    assert payload == {"tool": "get_weather", "arguments": {"city": "Oslo"}, "scratchpad": "hm"}
    answer = adapter.extract_tool_call(
        _chat_reply('{"action": {"answer": "Sunny", "scratchpad": null}}'), TOOLS
    )
    assert answer == {"answer": "Sunny", "scratchpad": None}
    assert adapter.validate_tool_call(payload, tools_by_name(TOOLS)).is_valid
    bad = adapter.validate_tool_call({"tool": "get_weather", "arguments": {}}, tools_by_name(TOOLS))
    assert not bad.is_valid and bad.error_message and "city" in bad.error_message
    unknown = adapter.validate_tool_call({"tool": "nope", "arguments": {}}, tools_by_name(TOOLS))
    assert not unknown.is_valid and "available tools" in (unknown.error_message or "")


def test_validated_adapter_parses_and_validates_prompted_calls() -> None:
    adapter = get_adapter("phi3")
    body = adapter.format_request(TOOLS, HISTORY)
    assert "tools" not in body
    assert "math.factorial" in body["messages"][0]["content"]
    assert "<tool_call>" in body["messages"][2]["content"]
    text = (
        'Let me see. <tool_call>{"name": "math.factorial", "arguments": {"n": 4}}</tool_call>'
        '<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>'
    )
    good, bad = adapter.extract_tool_calls(_chat_reply(text), TOOLS)
    assert (good.name, good.arguments) == ("math.factorial", {"n": 4})
    assert bad.arguments == {} and bad.arguments_error and "city" in bad.arguments_error


def test_native_history_writers() -> None:
    adapter = get_adapter("anthropic:claude-x")
    turns = adapter.tool_result_turn([HISTORY[3], HISTORY[4]])
    assert len(turns) == 1 and [b["type"] for b in turns[0]["content"]] == ["tool_result"] * 2
    response = adapter.decode(
        {
            "content": [
                {"type": "tool_use", "id": "t1", "name": "math_factorial", "input": {"n": 2}}
            ]
        },
        TOOLS,
    )
    assert response.tool_calls[0].name == "math.factorial"
    (turn,) = adapter.assistant_turn(response)
    assert turn["content"][0]["name"] == "math_factorial"


def test_get_adapter_is_validated_for_an_unknown_ollama_name_resolve_model_native_first() -> None:
    """docs/modes.md: get_adapter knows no server, so an unknown ``ollama:`` name is
    validated there, while resolve_model applies native with fallback."""
    from good_agent.models.resolve import resolve_model

    assert type(get_adapter("ollama:phi3")) is ValidatedStrategy
    model = resolve_model("ollama:phi3")
    assert model.strategy.auto_native  # type: ignore[attr-defined]
    assert model.strategy.default.mode is ToolCallingMode.NATIVE  # type: ignore[attr-defined]
