"""OpenAI's audio models take audio input; a part no API form exists for names the model."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from bridge_fakes import UPSTREAM_KEY, Reply
from media_requests import WAV
from media_requests import ask as media_ask
from upstreams import closing
from vendor_models import Vendors

from good_agent import Agent, AudioUrl, BinaryContent, ModelCapabilityError
from good_agent.models import ModelRequest, OpenAIChatModel
from good_agent.providers.profiles import get_profile

pytestmark = pytest.mark.anyio


def ask(*content: Any) -> ModelRequest:
    return media_ask(*content, prompt="Transcribe:")


@pytest.mark.parametrize(
    "name", ["gpt-4o-audio-preview", "gpt-4o-mini-audio-preview", "gpt-4o-audio-preview-2025-06-03"]
)
def test_audio_models_accept_audio(name: str) -> None:
    assert get_profile(name).accepts_audio
    assert get_profile(f"openai:{name}").accepts_audio
    assert not get_profile("gpt-4o").accepts_audio


@pytest.mark.parametrize("name", ["gpt-4o-audio-preview", "gpt-4o-mini-audio-preview"])
async def test_wav_reaches_chat_completions_as_input_audio(name: str, vendors: Vendors) -> None:
    fake, url = vendors["openai"]
    fake.reply = Reply(text="Hello there.")
    agent = Agent(model=f"openai:{name}", base_url=f"{url}/v1", api_key=UPSTREAM_KEY)
    answer = await agent.call(["Transcribe:", BinaryContent(WAV, "audio/wav")])
    assert answer.content == "Hello there."
    assert not fake.problems
    content = fake.requests[-1]["messages"][-1]["content"]
    assert content[1] == {
        "type": "input_audio",
        "input_audio": {"data": base64.b64encode(WAV).decode(), "format": "wav"},
    }


async def test_a_part_the_api_has_no_form_for_names_the_model(vendors: Vendors) -> None:
    """An audio URL: the profile takes audio, but Chat Completions takes it inline only."""
    fake, url = vendors["openai"]
    model = OpenAIChatModel("gpt-4o-audio-preview", base_url=f"{url}/v1", api_key=UPSTREAM_KEY)
    async with closing(model):
        with pytest.raises(ModelCapabilityError) as caught:
            await model.request(ask(AudioUrl("https://example.com/a.wav")))
    assert caught.value.model == "gpt-4o-audio-preview"
    assert str(caught.value).startswith("model 'gpt-4o-audio-preview' cannot take an audio part")
    assert "through OpenAI Chat Completions" in str(caught.value)
    assert fake.requests == []


async def test_responses_refusing_audio_names_the_model() -> None:
    profile = get_profile("openai-responses:gpt-4.1")
    from dataclasses import replace

    from good_agent.models import OpenAIResponsesModel

    model = OpenAIResponsesModel(
        "gpt-4.1",
        base_url="http://127.0.0.1:9/v1",
        api_key="k",
        profile=replace(profile, accepts_audio=True),
    )
    async with closing(model):
        with pytest.raises(ModelCapabilityError, match=r"^model 'gpt-4\.1' cannot take an audio"):
            await model.request(ask(BinaryContent(WAV, "audio/wav")))
