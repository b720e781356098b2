"""Mode choice and name detection: AUTO is native wherever the profile supports it,
STRUCTURED only when asked, and real-world model names resolve to sensible profiles."""

from __future__ import annotations

import logging

import pytest

from good_agent import ModelRequest, UserMessage
from good_agent.models.resolve import resolve_model
from good_agent.providers.modes import get_adapter
from good_agent.providers.profiles import ProfileRegistry, get_profile, name_candidates
from good_agent.providers.strategies import ToolCallingMode
from good_agent.providers.strategies.native import NativeStrategy
from good_agent.providers.strategies.structured import StructuredStrategy

OPENAI_NATIVE_STRICT = [
    "gpt-4o",
    "gpt-4o-mini",
    "gpt-4.1",
    "gpt-4.1-nano",
    "o1",
    "o3-mini",
    "o4-mini",
    "gpt-5",
    "gpt-5-mini",
    "chatgpt-4o-latest",
    "ft:gpt-4o-mini:my-org::abc123",
    "ft:gpt-4.1-2025-04-14:acme:custom:xyz",
    "azure/gpt-4o",
    "openai:o4-mini",
    "openai-responses:gpt-5",
]

OPEN_NATIVE = [
    "meta-llama/Meta-Llama-3.1-8B-Instruct",
    "META-LLAMA/LLAMA-3.3-70B-INSTRUCT",
    "Qwen/Qwen2.5-7B-Instruct",
    "qwen/QWEN3-8B",
    "codellama-34b",
    "codellama/CodeLlama-34b-Instruct-hf",
    "grok-3",
    "grok-4-fast",
    "deepseek-chat",
    "deepseek-ai/DeepSeek-V3",
    "mistral-large-latest",
    "mistralai/Mistral-7B-Instruct-v0.3",
    "gemma-3-27b-it",
    "google/gemma-2-9b-it",
    "gemma3",
    "phi-4",
    "microsoft/Phi-4-mini-instruct",
]


@pytest.mark.parametrize("model", OPENAI_NATIVE_STRICT)
def test_openai_models_are_native_and_strict_in_auto(model: str) -> None:
    profile = get_profile(model)
    assert profile.rule is not None
    assert profile.mode is ToolCallingMode.NATIVE
    assert profile.supports_strict
    adapter = get_adapter(model)
    assert type(adapter) is NativeStrategy
    assert adapter.strict is None  # strict wherever the schema allows


@pytest.mark.parametrize(
    "model",
    ["o1-mini", "o1-mini-2024-09-12", "o1-preview", "openai:o1-mini", "openai-responses:o1-mini"],
)
def test_openai_models_without_tools_are_prompted(model: str) -> None:
    """o1-mini and o1-preview take no tools: AUTO prompts them, even at a base_url."""
    profile = get_profile(model)
    assert profile.rule is not None and profile.provider.startswith("openai")
    assert profile.mode is ToolCallingMode.VALIDATED
    assert not profile.supports_strict and not profile.supports_response_format
    assert type(get_adapter(model)) is not NativeStrategy
    served = resolve_model(model, base_url="http://127.0.0.1:1/v1")
    assert served.tool_strategy.mode is ToolCallingMode.VALIDATED  # type: ignore[attr-defined]
    assert get_profile("o1").mode is ToolCallingMode.NATIVE


@pytest.mark.parametrize("model", OPEN_NATIVE)
def test_open_model_names_resolve_to_native_profiles(model: str) -> None:
    profile = get_profile(model)
    assert profile.rule is not None, model
    assert profile.mode is ToolCallingMode.NATIVE
    assert profile.provider == "openai" and profile.model == model
    assert type(get_adapter(model)) is NativeStrategy
    assert resolve_model(model, base_url="http://127.0.0.1:1/v1").model_name == model


def test_code_models_get_typescript_listings_when_prompted() -> None:
    assert get_profile("codellama-34b").prompt_format == "typescript"


@pytest.mark.parametrize("model", ["ft:gpt-4o-mini:org::id", "azure/gpt-4o", "llama3:8b"])
def test_prefix_like_names_are_not_unknown_providers(model: str) -> None:
    assert resolve_model(model, base_url="http://127.0.0.1:1/v1").model_name == model


def test_name_candidates() -> None:
    assert name_candidates("ft:gpt-4o-mini:org::id") == ["ft:gpt-4o-mini:org::id", "gpt-4o-mini"]
    assert name_candidates("Qwen/Qwen2.5-7B") == ["qwen/qwen2.5-7b", "qwen2.5-7b"]


def test_org_names_never_move_a_model_to_another_provider() -> None:
    for model in ("anthropic/claude-3.7-sonnet", "google/gemini-2.0-flash"):
        profile = get_profile(model)
        assert profile.provider == "openai" and profile.codec == "openai_chat"
        assert profile.mode is ToolCallingMode.NATIVE


def test_structured_only_by_explicit_mode_or_profile_override() -> None:
    for model in OPENAI_NATIVE_STRICT:
        assert get_profile(model).mode is not ToolCallingMode.STRUCTURED
    assert type(get_adapter("gpt-4o-mini", "structured")) is StructuredStrategy
    registry = ProfileRegistry()
    registry.register("gpt-4o*", mode="structured")
    assert type(get_adapter("gpt-4o-mini", registry=registry)) is StructuredStrategy
    model = resolve_model("gpt-4o-mini", api_key="k", mode="structured")
    assert model.tool_strategy.mode is ToolCallingMode.STRUCTURED  # type: ignore[attr-defined]
    assert resolve_model("gpt-4o-mini", api_key="k").tool_strategy.mode is ToolCallingMode.NATIVE  # type: ignore[attr-defined]


def test_the_chosen_mode_is_logged_once_per_model_object(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="good_agent.providers.modes")

    def logged() -> list[logging.LogRecord]:
        return [r for r in caplog.records if "gpt-4.1-mini-logtest" in r.getMessage()]

    model = resolve_model("gpt-4.1-mini-logtest", api_key="k")
    for _ in range(3):
        model.build_body(ModelRequest(messages=[UserMessage(content="hi")]))  # type: ignore[attr-defined]
    assert len(logged()) == 1
    assert logged()[0].levelno == logging.DEBUG
    assert "native" in logged()[0].getMessage()
    # What was logged is the model's, not the process's: another model logs its own.
    resolve_model("gpt-4.1-mini-logtest", api_key="k")
    assert len(logged()) == 2
