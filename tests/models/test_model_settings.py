"""The settings each model takes, checked and translated on the way to the wire.

Models talk to fake upstreams on loopback through the transports users get; the
bodies the fakes receive are checked.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest
from bridge_fakes import UPSTREAM_KEY, Reply
from hypothesis import given
from hypothesis import strategies as st
from upstreams import closing
from vendor_models import Vendors

from good_agent import Agent, resolve_model
from good_agent.models import (
    AnthropicModel,
    GeminiModel,
    ModelRequest,
    OllamaModel,
    OpenAIChatModel,
)
from good_agent.models.provider_model import ProviderModel
from good_agent.providers.settings import PROVIDER_SETTINGS, check_settings, known_settings
from good_agent.types.messages import UserMessage

pytestmark = pytest.mark.anyio


def ask(**settings: Any) -> ModelRequest:
    return ModelRequest([UserMessage(content="Hi")], [], None, settings)


RESPONSE = {
    "id": "r",
    "object": "response",
    "model": "o4-mini",
    "status": "completed",
    "output": [
        {
            "type": "message",
            "id": "m",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "Hello", "annotations": []}],
        }
    ],
    "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2},
}


# -- reasoning models ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["gpt-5", "gpt-5-mini", "o1", "o3-mini", "o4-mini"])
async def test_reasoning_models_get_max_completion_tokens_and_no_sampling(
    name: str, vendors: Vendors
) -> None:
    fake, url = vendors["openai"]
    model = OpenAIChatModel(name, base_url=f"{url}/v1", api_key=UPSTREAM_KEY)
    async with closing(model):
        with pytest.warns(UserWarning, match=r"reasoning model.*temperature, top_p") as caught:
            await model.request(ask(max_tokens=64, temperature=0.2, top_p=0.9, seed=7))
            await model.request(ask(max_tokens=64, temperature=0.2, top_p=0.9, seed=7))
    assert len([w for w in caught if "reasoning model" in str(w.message)]) == 1
    for body in fake.requests:
        assert body["max_completion_tokens"] == 64
        assert "max_tokens" not in body
        assert "temperature" not in body and "top_p" not in body
        assert body["seed"] == 7
    assert not fake.problems


@pytest.mark.parametrize("name", ["gpt-4o", "gpt-4.1-mini", "gpt-5-chat-latest"])
async def test_other_models_keep_max_tokens_and_sampling(name: str, vendors: Vendors) -> None:
    fake, url = vendors["openai"]
    model = OpenAIChatModel(name, base_url=f"{url}/v1", api_key=UPSTREAM_KEY)
    async with closing(model):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            await model.request(ask(max_tokens=64, temperature=0.2))
    body = fake.requests[-1]
    assert (body["max_tokens"], body["temperature"]) == (64, 0.2)
    assert "max_completion_tokens" not in body


async def test_responses_reasoning_model_gets_max_output_tokens_and_no_sampling(
    fake_upstream: Callable[[list[Any]], Any],
) -> None:
    upstream = fake_upstream([(200, RESPONSE)])
    model = resolve_model("openai-responses:o4-mini", base_url=f"{upstream.url}/v1", api_key="k")
    assert isinstance(model, ProviderModel)
    async with closing(model):
        with pytest.warns(UserWarning, match="temperature"):
            reply = await model.request(ask(max_tokens=100, temperature=0.5))
    assert reply.content == "Hello"
    [body] = upstream.bodies
    assert body["max_output_tokens"] == 100
    assert "temperature" not in body and "max_tokens" not in body
    assert "max_completion_tokens" not in body


async def test_an_agent_on_a_reasoning_model_sends_what_the_api_takes(vendors: Vendors) -> None:
    fake, url = vendors["openai"]
    fake.reply = Reply(text="Done.")
    agent = Agent(
        model="openai:gpt-5",
        base_url=f"{url}/v1",
        api_key=UPSTREAM_KEY,
        model_settings={"max_tokens": 32, "temperature": 0},
    )
    with pytest.warns(UserWarning, match="reasoning model"):
        assert (await agent.call("Hi")).content == "Done."
    assert fake.requests[-1]["max_completion_tokens"] == 32
    assert "temperature" not in fake.requests[-1]


# -- unknown and provider-specific settings -----------------------------------------


async def test_a_misspelled_setting_is_an_error_naming_it_and_the_close_match(
    vendors: Vendors,
) -> None:
    fake, url = vendors["openai"]
    model = OpenAIChatModel("gpt-4o", base_url=f"{url}/v1", api_key=UPSTREAM_KEY)
    async with closing(model):
        expected = r"'temprature' \(did you mean 'temperature'"
        with pytest.raises(ValueError, match=expected) as caught:
            await model.request(ask(temprature=0.2))
    assert "extra_body" in str(caught.value)
    assert fake.requests == []


def test_a_misspelled_default_setting_fails_when_the_model_is_built() -> None:
    with pytest.raises(ValueError, match=r"'max_token'.*'max_tokens'"):
        OpenAIChatModel("gpt-4o", api_key="k", settings={"max_token": 10})
    with pytest.raises(ValueError, match=r"'safety_setting'.*'safety_settings'"):
        GeminiModel("gemini-2.5-flash", api_key="k", settings={"safety_setting": []})


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=20))
def test_a_key_is_accepted_exactly_when_some_provider_knows_it(key: str) -> None:
    try:
        check_settings({key: 1})
    except ValueError as error:
        assert key not in known_settings()
        assert repr(key) in str(error)
    else:
        assert key in known_settings()


async def test_openai_specific_settings_pass_through(vendors: Vendors) -> None:
    fake, url = vendors["openai"]
    model = OpenAIChatModel("gpt-4o", base_url=f"{url}/v1", api_key=UPSTREAM_KEY)
    settings = {
        "service_tier": "flex",
        "logit_bias": {"50256": -100},
        "seed": 3,
        "parallel_tool_calls": False,
        "top_k": 5,  # Anthropic's: not sent to OpenAI
        "extra_body": {"my_gateway_flag": True},
    }
    async with closing(model):
        await model.request(ask(**settings))
    body = fake.requests[-1]
    assert body["service_tier"] == "flex"
    assert body["logit_bias"] == {"50256": -100}
    assert body["seed"] == 3
    assert body["my_gateway_flag"] is True
    assert "top_k" not in body and "extra_body" not in body


async def test_anthropic_top_k_and_extra_body_pass_through(vendors: Vendors) -> None:
    fake, url = vendors["anthropic"]
    model = AnthropicModel("claude-test", base_url=url, api_key=UPSTREAM_KEY)
    async with closing(model):
        await model.request(
            ask(top_k=40, service_tier="auto", seed=1, extra_body={"context_management": {}})
        )
    body = fake.requests[-1]
    assert body["top_k"] == 40
    assert body["service_tier"] == "auto"
    assert body["context_management"] == {}
    assert "seed" not in body  # OpenAI's: not sent to Anthropic


async def test_gemini_safety_settings_pass_through(vendors: Vendors) -> None:
    fake, url = vendors["gemini"]
    safety = [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}]
    model = GeminiModel("gemini-2.5-flash", base_url=url, api_key=UPSTREAM_KEY)
    async with closing(model):
        await model.request(ask(safety_settings=safety, top_k=3, max_tokens=20))
    body = fake.requests[-1]
    assert body["safety_settings"] == safety
    assert body["generation_config"]["top_k"] == 3
    assert body["generation_config"]["max_output_tokens"] == 20


async def test_ollama_keep_alive_passes_through(vendors: Vendors) -> None:
    fake, url = vendors["ollama"]
    model = OllamaModel("qwen2.5", base_url=url, api_key=UPSTREAM_KEY, mode="native")
    async with closing(model):
        await model.request(ask(keep_alive="5m", num_ctx=4096))
    body = fake.requests[-1]
    assert body["keep_alive"] == "5m"
    assert body["options"]["num_ctx"] == 4096


def test_every_provider_lists_thinking_as_known() -> None:
    assert set(PROVIDER_SETTINGS) >= {"openai_chat", "anthropic_messages", "gemini"}
    for name, keys in PROVIDER_SETTINGS.items():
        assert "thinking" in keys, name
