"""Bad input to a served agent: a 400 naming the field, never a 500, nothing lost."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from bad_input import UI_BAD, Case, refused, send_sync
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ui_harness import ag_ui, refusal, run_input, served, text_of, user

from good_agent import Agent
from good_agent.server.background import BackgroundServer
from good_agent.server.ui import agent_app
from good_agent.testing import ScriptedModel


@pytest.fixture(scope="module")
def server() -> Iterator[BackgroundServer]:
    # every accepted request gets the same answer
    model = ScriptedModel([lambda request: "ok"] * 10_000)
    with served(agent_app(Agent(model=model), max_body_bytes=50_000)) as running:
        yield running


@pytest.mark.parametrize("case", UI_BAD)
def test_a_malformed_input_is_a_400_naming_the_field(server: BackgroundServer, case: Case) -> None:
    refused(send_sync(server, case), case)


@pytest.mark.parametrize("path", ["/ag-ui", "/vercel"])
def test_a_body_that_is_not_json_or_too_large_is_refused_cleanly(
    server: BackgroundServer, path: str
) -> None:
    assert refusal(server, path, b"{not json")[0] == 400
    assert refusal(server, path, b"[1, 2]")[0] == 400
    assert refusal(server, path, b'{"a": "' + b"x" * 60_000 + b'"}')[0] == 413


def test_a_tool_result_for_no_waiting_call_is_a_400(server: BackgroundServer) -> None:
    stray = {"id": "r", "role": "tool", "toolCallId": "nope", "content": "x"}
    status, error = refusal(server, "/ag-ui", run_input("stray", [stray]))
    assert status == 400 and error["error"]["param"] == "messages.0.toolCallId"


def test_a_refused_input_loses_nothing_of_the_thread(server: BackgroundServer) -> None:
    ag_ui(server, run_input("keep", [user("first")]))
    refusal(server, "/ag-ui", run_input("keep", [user("x")], forwardedProps={"model": "nope"}))
    events = ag_ui(server, run_input("keep", [user("second")]))
    assert text_of(events) == "ok"
    snapshot = next(e for e in events if type(e).__name__ == "MessagesSnapshotEvent")
    assert [m.content for m in snapshot.messages] == ["first", "ok", "second", "ok"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=10,
)
fields = st.fixed_dictionaries(
    {},
    optional={
        "threadId": json_values,
        "runId": json_values,
        "messages": st.lists(
            st.fixed_dictionaries(
                {},
                optional={
                    "id": json_values,
                    "role": st.sampled_from(["user", "assistant", "tool", "system", "x"]),
                    "content": json_values,
                    "toolCallId": json_values,
                    "parts": json_values,
                },
            ),
            max_size=3,
        ),
        "tools": json_values,
        "resume": json_values,
        "forwardedProps": json_values,
        "id": json_values,
    },
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=fields, path=st.sampled_from(["/ag-ui", "/vercel"]))
def test_no_input_gets_a_500(server: BackgroundServer, body: dict[str, Any], path: str) -> None:
    response = httpx.post(f"{server.url}{path}", content=json.dumps(body), timeout=30)
    assert response.status_code in (200, 400), response.text
    if response.status_code == 400:
        assert response.json()["error"]["message"]
