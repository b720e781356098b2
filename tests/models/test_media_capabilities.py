"""A media part the model cannot take fails before any request, naming model and part.

The profile says which kinds a model takes; a prompted (text-only) model takes none
unless its profile asks for text placeholders.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from bridge_fakes import UPSTREAM_KEY
from media_files import pdf, png
from media_requests import WAV
from media_requests import ask as media_ask
from upstreams import closing
from vendor_models import Vendors

from good_agent import Agent, BinaryContent, ImageUrl, ModelCapabilityError
from good_agent.models import (
    AnthropicModel,
    GeminiModel,
    ModelRequest,
    OpenAIChatModel,
)
from good_agent.providers.profiles import get_profile

pytestmark = pytest.mark.anyio

PNG = png()


def ask(*content: Any) -> ModelRequest:
    return media_ask(*content, prompt="Look:")


async def test_a_profile_without_images_refuses_an_image_before_the_request(
    vendors: Vendors,
) -> None:
    fake, url = vendors["openai"]
    profile = replace(get_profile("openai:gpt-4.1"), accepts_images=False)
    model = OpenAIChatModel("gpt-4.1", base_url=f"{url}/v1", api_key=UPSTREAM_KEY, profile=profile)
    async with closing(model):
        with pytest.raises(ModelCapabilityError) as caught:
            await model.request(ask(BinaryContent(PNG, "image/png")))
    assert caught.value.model == "gpt-4.1"
    assert "image part (image/png, inline data)" in str(caught.value)
    assert "does not accept images" in str(caught.value)
    assert fake.requests == []


async def test_audio_goes_to_gemini_and_is_refused_for_claude_before_the_request(
    vendors: Vendors,
) -> None:
    gemini, gemini_url = vendors["gemini"]
    async with closing(
        GeminiModel("gemini-2.5-flash", base_url=gemini_url, api_key=UPSTREAM_KEY)
    ) as model:
        await model.request(ask(BinaryContent(WAV, "audio/wav")))
    assert not gemini.problems and len(gemini.requests) == 1
    claude, claude_url = vendors["anthropic"]
    async with closing(
        AnthropicModel("claude-test", base_url=claude_url, api_key=UPSTREAM_KEY)
    ) as model:
        with pytest.raises(ModelCapabilityError, match="'claude-test' cannot take an audio part"):
            await model.request(ask(BinaryContent(WAV, "audio/wav")))
    assert claude.requests == []


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
async def test_a_prompted_model_refuses_media_before_the_request(
    stream: bool, vendors: Vendors
) -> None:
    fake, url = vendors["text"]
    model = OpenAIChatModel("local", base_url=f"{url}/v1", api_key=UPSTREAM_KEY, mode="validated")
    async with closing(model):
        with pytest.raises(ModelCapabilityError, match="prompted mode 'validated'"):
            if stream:
                async for _ in model.stream(ask(ImageUrl("https://example.com/a.png"))):
                    pass
            else:
                await model.request(ask(ImageUrl("https://example.com/a.png")))
    assert fake.requests == []


async def test_a_prompted_model_with_placeholders_gets_text_instead(
    vendors: Vendors,
) -> None:
    fake, url = vendors["text"]
    profile = replace(get_profile("openai:local"), media_placeholder=True)
    model = OpenAIChatModel(
        "local", base_url=f"{url}/v1", api_key=UPSTREAM_KEY, mode="validated", profile=profile
    )
    async with closing(model):
        await model.request(
            ask(BinaryContent(PNG, "image/png"), BinaryContent(pdf(), "application/pdf"))
        )
    assert not fake.problems
    content = fake.requests[-1]["messages"][-1]["content"]
    assert content == [
        {"type": "text", "text": "Look:"},
        {"type": "text", "text": "[image (image/png) not shown to this model]"},
        {"type": "text", "text": "[document (application/pdf) not shown to this model]"},
    ]


async def test_an_agent_run_fails_with_the_capability_error_and_sends_nothing(
    vendors: Vendors,
) -> None:
    fake, url = vendors["text"]
    model = OpenAIChatModel("local", base_url=f"{url}/v1", api_key=UPSTREAM_KEY, mode="validated")
    async with Agent(model=model) as agent:
        with pytest.raises(ModelCapabilityError, match="'local' cannot take an image part"):
            await agent.run(["What is this?", BinaryContent(PNG, "image/png")])
    assert fake.requests == []
