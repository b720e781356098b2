"""``[models.profile]`` takes every profile field the library has; the bridge and
``resolve_model`` choose the same mode for the same upstream; docs/server.md lists the
fields and formats and states the modes page's rule."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args, get_type_hints

import httpx2
import pytest

from good_agent.models.resolve import resolve_model
from good_agent.providers.profiles import IDENTITY_FIELDS, ModelProfile
from good_agent.providers.text.registry import BUILTIN_FORMATS
from good_agent.server import ConfigError, ServedModel, parse_config
from good_agent.server.config import OVERRIDABLE_PROFILE_FIELDS, ServerConfig

DOCS = Path(__file__).parent.parent.parent / "docs"


@pytest.fixture
def client() -> Iterator[httpx2.AsyncClient]:
    yield httpx2.AsyncClient()


def served(client: httpx2.AsyncClient, **entry: Any) -> ServedModel:
    config = parse_config({"models": [{"name": "m", "provider": "openai", **entry}]})
    return ServedModel(config.models[0], ServerConfig(), client)


def other_value(name: str) -> Any:
    """A valid value of profile field ``name`` that is not its default."""
    default = next(f.default for f in dataclasses.fields(ModelProfile) if f.name == name)
    hint = get_type_hints(ModelProfile)[name]
    choices = [v for arg in get_args(hint) or (hint,) for v in get_args(arg) or [arg]]
    if bool in choices:
        return not default
    return next(v for v in choices if isinstance(v, str) and v != default)


def test_every_capability_field_of_the_profile_is_accepted() -> None:
    capability = {f.name for f in dataclasses.fields(ModelProfile)} - IDENTITY_FIELDS - {"mode"}
    assert set(OVERRIDABLE_PROFILE_FIELDS) == capability
    assert {"constrained_decoding", "prompt_notation", "prompt_format"} <= capability


@pytest.mark.parametrize("name", OVERRIDABLE_PROFILE_FIELDS)
def test_each_override_reaches_the_model(client: httpx2.AsyncClient, name: str) -> None:
    value = other_value(name)
    model = served(client, model="my-model", mode="validated", profile={name: value}).model
    assert getattr(model.profile, name) == value


def test_prompt_overrides_shape_the_prompted_strategy(client: httpx2.AsyncClient) -> None:
    overrides = {
        "prompt_notation": "thought",
        "prompt_format": "typescript",
        "constrained_decoding": "vllm",
    }
    model = served(client, model="my-model", mode="validated", profile=overrides).model
    style = model.tool_strategy.style  # type: ignore[attr-defined]
    assert (style.notation, style.schema_format, style.constrained) == (
        "thought",
        "typescript",
        "vllm",
    )


@pytest.mark.parametrize(
    ("profile", "expected"),
    [
        ({"supports_teleport": True}, "models[0].profile.supports_teleport: unknown profile"),
        ({"mode": "native"}, "models[0].profile.mode: mode is set on the model entry"),
        ({"prompt_notation": "yaml"}, "models[0].profile.prompt_notation"),
        ({"constrained_decoding": "regex"}, "models[0].profile.constrained_decoding"),
        ({"supports_parallel": "often"}, "models[0].profile.supports_parallel"),
    ],
)
def test_bad_profile_fields_are_clear_config_errors(profile: dict[str, Any], expected: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(
            {"models": [{"name": "m", "provider": "openai", "model": "x", "profile": profile}]}
        )
    assert expected in str(caught.value)
    if "unknown profile" in expected:
        assert all(name in str(caught.value) for name in OVERRIDABLE_PROFILE_FIELDS)


@pytest.mark.parametrize("provider", ["openai", "ollama", "anthropic", "gemini"])
@pytest.mark.parametrize("name", ["my-house-model", "llama3.2", "gpt-4o-mini", "claude-x"])
@pytest.mark.parametrize("base_url", [None, "http://127.0.0.1:9/v1"])
@pytest.mark.parametrize("mode", ["auto", "validated"])
def test_the_bridge_and_resolve_model_pick_the_same_mode(
    client: httpx2.AsyncClient, provider: str, name: str, base_url: str | None, mode: str
) -> None:
    route = ServedModel(
        parse_config(
            {
                "models": [
                    {
                        "name": "r",
                        "provider": provider,
                        "model": name,
                        "mode": mode,
                        **({"base_url": base_url} if base_url else {}),
                    }
                ]
            }
        ).models[0],
        ServerConfig(),
        client,
    )
    agent_model = resolve_model(f"{provider}:{name}", base_url=base_url, api_key="k", mode=mode)
    strategy = agent_model.strategy  # type: ignore[attr-defined]
    assert route.mode is strategy.mode
    assert route.model.strategy.auto_native is strategy.auto_native


def _row(page: str, key: str) -> str:
    text = (DOCS / page).read_text()
    match = re.search(rf"^\| `{key}` \|.*$", text, re.MULTILINE)
    assert match, f"no row for {key} in {page}"
    return match.group(0)


def test_server_docs_list_every_text_format_and_profile_field() -> None:
    formats = _row("server.md", "text_format")
    assert "thought" in BUILTIN_FORMATS
    assert [f for f in BUILTIN_FORMATS if f"`{f}`" not in formats] == []
    profile = _row("server.md", "profile")
    assert [f for f in OVERRIDABLE_PROFILE_FIELDS if f"`{f}`" not in profile] == []


def test_server_docs_state_the_unknown_name_rule_of_the_modes_page() -> None:
    mode = _row("server.md", "mode")
    assert "modes.md#the-rule" in mode and "assumed native" not in mode
    for words in ("`validated`", "`base_url`", "`ollama`", "native with fallback"):
        assert words in mode
    rule = (DOCS / "modes.md").read_text()
    assert "A name no rule knows is `VALIDATED`" in rule and "native with fallback" in rule
