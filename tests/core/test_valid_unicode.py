"""A lone surrogate written by a model never reaches a tool or breaks the next request."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from good_agent import Agent, ToolMessage, tool
from good_agent.core.valid_unicode import valid_text
from good_agent.messages import dump_messages, load_messages
from good_agent.testing import ScriptedModel

pytestmark = pytest.mark.anyio

ran: list[str] = []


@tool
def echo(text: str) -> str:
    """Echo the text."""
    ran.append(text)
    return text


def chat_reply(message: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    return 200, {
        "id": "r",
        "object": "chat.completion",
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def surrogate_call(arguments: str) -> tuple[int, dict[str, Any]]:
    call = {"id": "c1", "type": "function", "function": {"name": "echo", "arguments": arguments}}
    return chat_reply({"role": "assistant", "content": None, "tool_calls": [call]})


async def test_a_lone_surrogate_from_an_upstream_goes_back_as_a_validation_error(
    fake_upstream: Callable[[list[Any]], Any],
) -> None:
    ran.clear()
    upstream = fake_upstream(
        [
            surrogate_call('{"text": "a\\ud800b"}'),
            # the JSON text of the reply itself holds an escaped lone surrogate
            chat_reply({"role": "assistant", "content": "sorry \ud800"}),
        ]
    )
    agent = Agent(
        model="openai:gpt-4o-mini", base_url=f"{upstream.url}/v1", api_key="sk-test", tools=[echo]
    )
    answer = await agent.call("go")  # no UnicodeEncodeError
    assert answer.content == "sorry \ufffd" and ran == []
    sent = upstream.bodies[1]["messages"]
    result = next(m for m in sent if m["role"] == "tool")
    assert "text: the text holds an unpaired UTF-16 surrogate" in result["content"]
    assert load_messages(dump_messages(agent.messages)) == agent.messages


@pytest.mark.parametrize("streamed", [False, True])
async def test_a_lone_surrogate_from_a_scripted_model_is_refused(streamed: bool) -> None:
    ran.clear()
    arguments = {"text": "x\ud800", "\udfff": ["\ud83d"]}
    if streamed:
        call = ScriptedModel.streamed(ScriptedModel.call("echo", arguments, id="c1"))
        script: list[Any] = [call, ScriptedModel.streamed("fine ", "\udc00")]
    else:
        script = [ScriptedModel.tool_call("echo", arguments, id="c1"), "fine \udc00"]
    model = ScriptedModel(script)
    agent = Agent(model=model, tools=[echo])
    if streamed:
        async with agent.stream("go") as run:
            output = await run.wait()
        text = output.output
    else:
        text = (await agent.run("go")).output
    assert text == "fine \ufffd" and ran == []
    (result,) = [m for m in agent.messages if isinstance(m, ToolMessage)]
    assert result.is_error
    assert "text, \ufffd, \ufffd[0]: the text holds an unpaired" in result.content
    dump_messages(agent.messages).decode("utf-8")  # the whole history encodes


@given(st.text(alphabet=st.characters(codec=None)))
def test_valid_text_always_encodes_and_keeps_valid_text(text: str) -> None:
    cleaned = valid_text(text)
    cleaned.encode("utf-8")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        assert "\ufffd" in cleaned or len(cleaned) < len(text)
    else:
        assert cleaned == text


_json_text = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=6)
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | _json_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_json_text, inner, max_size=3),
    max_leaves=8,
)


@given(
    content=st.none() | _json_text,
    arguments=st.dictionaries(_json_text, _json_values, max_size=3),
    replay=st.lists(st.dictionaries(_json_text, _json_values, max_size=2), max_size=2),
)
def test_a_reply_is_kept_exactly_when_no_text_in_it_holds_a_surrogate(
    content: str | None, arguments: dict[str, Any], replay: list[dict[str, Any]]
) -> None:
    from good_agent.core.valid_unicode import valid_reply
    from good_agent.models.base import ModelResponse
    from good_agent.types.messages import ToolCall

    call = ToolCall(id="c1", name="echo", arguments=arguments)
    response = ModelResponse(content, [call], "tool_calls", None, None, replay)
    dumped = json.dumps([content, arguments, replay], ensure_ascii=False)
    result = valid_reply(response)
    assert (result is response) == (valid_text(dumped) == dumped)
    json.dumps([result.content, result.tool_calls[0].arguments, result.replay]).encode()


def test_a_valid_reply_is_checked_without_walking_its_values(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import good_agent.core.valid_unicode as valid_unicode
    from good_agent.models.base import ModelResponse
    from good_agent.types.messages import ToolCall

    def walked(*args: Any) -> Any:
        raise AssertionError("a valid reply was walked value by value")

    monkeypatch.setattr(valid_unicode, "_clean", walked)
    call = ToolCall(id="c1", name="echo", arguments={"text": "héllo", "n": [1, {"k": "ü"}]})
    response = ModelResponse("done ✓", [call], "tool_calls", None, "why", [{"type": "x"}])
    assert valid_unicode.valid_reply(response) is response
