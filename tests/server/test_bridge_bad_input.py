"""Bad client input is a 400 naming the field, checked before the upstream is contacted.

Each case here answered 500 (a RecursionError, a TypeError, a crash when the
model's call was validated) or 502 (blaming an upstream never contacted), or was
accepted with the wrong meaning (``n: true``, ``stream: "yes"``).
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from bad_input import (
    BAD_RESPONSE_FORMATS,
    BAD_TOOL_CHOICE_NAMES,
    BAD_TOOL_SCHEMAS,
    UNSENDABLE,
    WRONG_TYPES,
    Case,
    cases,
    chat,
    nested_items,
    refused,
    send,
)
from bridge_fakes import Fake

pytestmark = [pytest.mark.anyio, pytest.mark.both_paths]
DEEP = b'{"model": "gpt", "messages": ' + b"[" * 10_000 + b"]" * 10_000 + b"}"


@pytest.mark.parametrize(
    "case", [*cases("chat", (DEEP, None)), *cases("messages", (DEEP, None))]
)
async def test_a_10000_deep_body_is_a_400(
    bridge: Any, case: Case, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="good_agent.server")
    message = refused(await send(bridge, case), case)
    assert "nested more than 200 levels" in message
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    statuses = [r.__dict__.get("status") for r in caplog.records if r.name.endswith("access")]
    assert statuses == [400], "one access-log line per request"


@pytest.mark.parametrize("case", BAD_TOOL_SCHEMAS)
async def test_bad_tool_schemas_are_400s(
    bridge: Any, fakes: dict[str, tuple[Fake, str]], case: Case
) -> None:
    message = refused(await send(bridge, case), case)
    assert any(word in message for word in ("nested", "must", "valid", "loop"))
    assert not fakes["openai"][0].requests and not fakes["anthropic"][0].requests


async def test_a_schema_at_the_depth_limit_is_served(
    bridge: Any, fakes: dict[str, tuple[Fake, str]]
) -> None:
    tool = {"type": "function", "function": {"name": "f", "parameters": nested_items(60)}}
    ok = await send(bridge, Case("chat", chat(tools=[tool]), None))
    assert ok.status_code == 200, ok.text
    assert fakes["openai"][0].requests


@pytest.mark.parametrize("case", BAD_RESPONSE_FORMATS)
async def test_bad_response_format_schemas_are_400s(
    bridge: Any, fakes: dict[str, tuple[Fake, str]], case: Case
) -> None:
    refused(await send(bridge, case), case)
    assert not fakes["openai"][0].requests


@pytest.mark.parametrize("case", BAD_TOOL_CHOICE_NAMES)
async def test_messages_tool_choice_name_must_be_a_string(bridge: Any, case: Case) -> None:
    refused(await send(bridge, case), case)


@pytest.mark.parametrize("case", WRONG_TYPES)
async def test_wrong_types_are_400s_naming_the_field(
    bridge: Any, fakes: dict[str, tuple[Fake, str]], case: Case
) -> None:
    refused(await send(bridge, case), case)
    assert not fakes["openai"][0].requests and not fakes["anthropic"][0].requests


@pytest.mark.parametrize("case", UNSENDABLE)
async def test_lone_surrogates_and_non_finite_numbers_are_400s(
    bridge: Any, fakes: dict[str, tuple[Fake, str]], case: Case
) -> None:
    message = refused(await send(bridge, case), case)
    assert "upstream" not in message
    assert not fakes["openai"][0].requests and not fakes["anthropic"][0].requests


async def test_a_surrogate_in_a_tool_result_names_its_place(bridge: Any) -> None:
    raw = (
        b'{"model": "gpt", "messages": [{"role": "user", "content": "x"},'
        b' {"role": "assistant", "tool_calls": [{"id": "c", "type": "function",'
        b' "function": {"name": "f", "arguments": "{}"}}]},'
        b' {"role": "tool", "tool_call_id": "c", "content": "\\ud800"}]}'
    )
    case = Case("chat", raw, "messages[2].content")
    assert "surrogate" in refused(await send(bridge, case), case)
