"""An OpenAI Chat Completions stream that holds no reply is refused by its decoder.

Property tests: chunks that never carry a choice (with or without usage, ended by
``[DONE]``) are no reply, and a tool-call ``index`` of any type other than an
integer (or absent) is a malformed chunk, while any integer index is read.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from good_agent.providers.openai.chat_stream import OpenAIChatDecoder
from good_agent.providers.reply_shape import ReplyShapeError
from good_agent.providers.streaming import DONE_EVENT, ToolCallStart

usage = st.fixed_dictionaries(
    {"prompt_tokens": st.integers(0, 10**6), "completion_tokens": st.integers(0, 10**6)}
)
empty_chunk = st.builds(
    lambda choices, extra: {"object": "chat.completion.chunk", "choices": choices, **extra},
    st.sampled_from([[], None]),
    st.one_of(st.just({}), usage.map(lambda u: {"usage": u})),
)
not_an_integer = st.one_of(
    st.text(max_size=5),
    st.floats(allow_nan=False),
    st.booleans(),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


def call_chunk(index: Any) -> dict[str, Any]:
    call = {"index": index, "id": "call_1", "function": {"name": "f", "arguments": "{}"}}
    return {"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}


@given(st.lists(empty_chunk, max_size=6))
def test_chunks_without_choices_are_no_reply(chunks: list[dict[str, Any]]) -> None:
    decoder = OpenAIChatDecoder()
    for chunk in [*chunks, DONE_EVENT]:
        decoder.feed(chunk)
    with pytest.raises(ReplyShapeError, match="without any choices"):
        decoder.finish()


@given(not_an_integer)
def test_a_call_index_that_is_not_an_integer_is_malformed(index: Any) -> None:
    with pytest.raises(ReplyShapeError, match="'index'"):
        OpenAIChatDecoder().feed(call_chunk(index))


@given(st.one_of(st.none(), st.integers()))
def test_an_integer_or_missing_call_index_is_read(index: int | None) -> None:
    decoder = OpenAIChatDecoder()
    deltas = decoder.feed(call_chunk(index))
    assert ToolCallStart(0, "call_1", "f") in deltas
    decoder.feed({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    assert decoder.finish().tool_calls[0].name == "f"
