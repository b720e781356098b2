"""User messages with images, documents and audio: prompts, history, dump and load."""

from __future__ import annotations

import base64
import json

import pytest
from media_files import pdf, png

from good_agent import (
    Agent,
    AudioUrl,
    BinaryContent,
    DocumentUrl,
    ImageUrl,
    UserMessage,
)
from good_agent.testing import ScriptedModel
from good_agent.types.history import dump_messages, load_messages

pytestmark = pytest.mark.anyio

PNG = png()
PDF = pdf()


def prompt() -> list[object]:
    return [
        "What is on this receipt?",
        ImageUrl("https://example.com/receipt.png"),
        BinaryContent(PNG, "image/png"),
        BinaryContent(PDF, "application/pdf"),
        DocumentUrl("https://example.com/terms.pdf"),
        AudioUrl("https://example.com/note.mp3"),
        BinaryContent(b"RIFF....WAVE", "audio/wav"),
    ]


def sent_user_content(model: ScriptedModel) -> object:
    messages = model.requests[0].messages
    return next(m for m in messages if isinstance(m, UserMessage)).content


async def test_a_list_prompt_becomes_one_user_message_with_its_parts() -> None:
    model = ScriptedModel(["A receipt."])
    agent = Agent(model=model)
    result = await agent.run(prompt())
    assert result.output == "A receipt."
    assert sent_user_content(model) == prompt()
    user = agent.messages[-2]
    assert isinstance(user, UserMessage)
    assert user.text == "What is on this receipt?"


async def test_stream_and_call_take_a_list_prompt() -> None:
    model = ScriptedModel(["one", "two"])
    agent = Agent(model=model)
    async with agent.stream(prompt()) as run:
        async for _ in run:
            pass
    await agent.call(prompt())
    assert [r.messages[-1].content for r in model.requests] == [prompt(), prompt()]


def test_run_sync_takes_a_list_prompt() -> None:
    model = ScriptedModel(["ok"])
    with Agent(model=model) as agent:
        assert agent.run_sync(prompt()).output == "ok"
    assert sent_user_content(model) == prompt()


async def test_a_prompt_item_of_another_type_is_refused_before_the_history() -> None:
    agent = Agent(model=ScriptedModel(["never"]))
    with pytest.raises(TypeError, match="prompt item must be text, ImageUrl"):
        await agent.run(["look", 42])  # type: ignore[list-item]
    assert agent.messages == []


def test_parts_take_positional_arguments_like_pydantic_ai() -> None:
    part = BinaryContent(PNG, "image/png")
    assert (part.data, part.media_type, part.media_kind) == (PNG, "image/png", "image")
    assert BinaryContent(PDF, "application/pdf").media_kind == "document"
    assert ImageUrl("https://x/y.jpg").url == "https://x/y.jpg"
    assert "bytes" in repr(part) and str(len(PNG)) in repr(part)


def test_dump_and_load_round_trip_binary_parts_as_base64() -> None:
    history = [UserMessage(content=prompt())]
    data = dump_messages(history)
    stored = json.loads(data)[0]["content"]
    assert base64.b64decode(stored[2]["data"]) == PNG
    assert base64.b64decode(stored[3]["data"]) == PDF
    restored = load_messages(data)
    assert restored == history
    restored_part = restored[0].content[2]  # type: ignore[union-attr,index]
    assert isinstance(restored_part, BinaryContent) and restored_part.data == PNG


def test_a_history_of_plain_strings_still_loads() -> None:
    old = b'[{"role":"user","content":"hello"},{"role":"assistant","content":"hi"}]'
    loaded = load_messages(old)
    assert loaded[0] == UserMessage(content="hello")


def test_the_neutral_message_carries_each_part_in_openai_chat_form() -> None:
    wire = UserMessage(content=prompt()).to_openai()["content"]
    assert wire[0] == {"type": "text", "text": "What is on this receipt?"}
    assert wire[1]["image_url"] == {"url": "https://example.com/receipt.png"}
    assert wire[2]["image_url"]["url"] == "data:image/png;base64," + base64.b64encode(PNG).decode()
    assert wire[3]["file"]["file_data"].startswith("data:application/pdf;base64,")
    assert wire[3]["file"]["filename"] == "document.pdf"
    assert wire[6]["input_audio"]["format"] == "wav"
