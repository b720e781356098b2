"""Configuration loading: defaults, registry lookups and errors that name file, entry and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from good_agent.providers.openai.http_transport import OpenAIHttpTransport
from good_agent.providers.profile_rules import ProviderInfo
from good_agent.providers.registry import register_vendor
from good_agent.providers.strategies.base import ToolCallingMode
from good_agent.providers.types import ChatRequest
from good_agent.providers.vendor import Vendor
from good_agent.server import ConfigError, ServedModel, create_app, load_config, parse_config

GOOD = """
[server]
api_keys_env = "MY_KEYS"

[[models]]
name = "local"
provider = "ollama"
model = "qwen2.5:7b"
mode = "validated"

[[models]]
name = "gpt"
provider = "openai"
model = "gpt-4o-mini"
api_key_env = "OPENAI_API_KEY"
[models.profile]
supports_parallel = false
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bridge.toml"
    path.write_text(text)
    return path


def test_good_config_and_defaults(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, GOOD))
    assert config.server.host == "127.0.0.1" and config.server.port == 7285
    assert [m.name for m in config.models] == ["local", "gpt"]
    assert config.model_named("gpt") is not None and config.model_named("x") is None
    app = create_app(config)
    routes = app.state.bridge.routes
    assert routes["local"].mode is ToolCallingMode.VALIDATED
    assert routes["gpt"].mode is ToolCallingMode.NATIVE


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (GOOD.replace('provider = "ollama"', 'provider = "nope"'), "models[0].provider"),
        (GOOD.replace('mode = "validated"', 'mode = "magic"'), "models[0].mode"),
        (GOOD + '\n[[models]]\nname = "x"\nprovider = "openai"\n', "models[2].model"),
        (
            GOOD.replace("supports_parallel", "supports_teleport"),
            "models[1].profile.supports_teleport",
        ),
        (GOOD.replace('api_keys_env = "MY_KEYS"', "port = 99999"), "server.port"),
        (
            GOOD.replace('model = "qwen2.5:7b"', 'model = "q"\nbase_url = "ftp://x"'),
            "models[0].base_url",
        ),
        (GOOD.replace('name = "gpt"', 'name = "local"'), "configured twice"),
        (
            "[[models]]\nname = 'a'\nprovider = 'openai'\nmodel = 'm'\ntext_format = 'zzz'\n",
            "models[0].text_format",
        ),
        ("[server]\n", "models"),
        ("[[models]\n", "not valid TOML"),
    ],
)
def test_errors_name_file_entry_and_field(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(path) in str(caught.value)
    assert expected in str(caught.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "absent.toml")


def test_provider_registry_is_extensible() -> None:
    class Compatible(OpenAIHttpTransport):
        provider = "my-compatible"
        profile_provider = "my-compatible"

    register_vendor(
        Vendor(
            name="my-compatible",
            providers={"my-compatible": ProviderInfo("my-compatible", "openai_chat")},
            http_transports={"my-compatible": Compatible},
        )
    )
    config = parse_config(
        {
            "models": [
                {
                    "name": "m",
                    "provider": "my-compatible",
                    "model": "x",
                    "base_url": "http://127.0.0.1:1/v1",
                }
            ]
        }
    )
    route = create_app(config).state.bridge.routes["m"]
    assert isinstance(route, ServedModel) and isinstance(route.model.transport, Compatible)
    chat = ChatRequest([{"role": "user", "content": "hi"}])
    assert route.model.plan(chat).body["model"] == "x"


def test_example_config_loads() -> None:
    path = Path(__file__).parents[2] / "examples" / "bridge_config.toml"
    config = load_config(path)
    routes = create_app(config).state.bridge.routes
    assert routes["local-qwen"].mode is ToolCallingMode.VALIDATED
    assert routes["claude"].mode is ToolCallingMode.NATIVE
