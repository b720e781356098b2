"""``/v1/responses`` errors: a 400 naming the field for bad input (never a 500), the
upstream's faults as OpenAI errors or ``response.failed``, and a client that leaves."""

from __future__ import annotations

from typing import Any

import httpx2
import openai
import pytest
from bad_input import RESPONSES_BAD, Case, refused, send
from bridge_fakes import Fake, Reply
from bridge_harness import CLIENT_KEY, leave_early_cancels_upstream
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from responses_harness import AUTH, RESP, events_of, post

from good_agent.server.background import BackgroundServer

pytestmark = [pytest.mark.anyio, pytest.mark.both_paths]
UPSTREAM = {"gpt": "openai", RESP: "responses"}
"""A Chat Completions route (always translated) and a Responses one (passed through
when the path is on), with their fakes."""


@pytest.mark.parametrize("case", RESPONSES_BAD)
async def test_bad_input_is_a_400_naming_the_field(
    rbridge: BackgroundServer, fakes: dict[str, tuple[Fake, str]], case: Case
) -> None:
    before = len(fakes["openai"][0].requests)
    refused(await send(rbridge, case), case)
    assert len(fakes["openai"][0].requests) == before


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
FIELDS = ["input", "instructions", "tools", "tool_choice", "text", "max_output_tokens", "store"]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    values=st.dictionaries(st.sampled_from(FIELDS), JSON, max_size=4),
    item=st.dictionaries(st.sampled_from(["type", "role", "content", "call_id", "output"]), JSON),
)
def test_no_body_is_a_500(rbridge: BackgroundServer, values: dict[str, Any], item: Any) -> None:
    body = {"model": "gpt", "input": [item], **values}
    with httpx2.Client(timeout=30) as http:
        response = http.post(f"{rbridge.url}/v1/responses", json=body, headers=AUTH)
    assert response.status_code in (200, 400), response.text
    if response.status_code == 400:
        assert response.json()["error"]["param"]


@pytest.mark.parametrize("model", sorted(UPSTREAM))
async def test_an_upstream_refusal_before_the_stream_is_an_openai_error(
    rbridge: BackgroundServer, fakes: dict[str, tuple[Fake, str]], model: str
) -> None:
    fakes[UPSTREAM[model]][0].fail_status = 503
    async with openai.AsyncOpenAI(
        base_url=f"{rbridge.url}/v1", api_key=CLIENT_KEY, max_retries=0
    ) as client:
        with pytest.raises(openai.APIStatusError) as failed:
            await client.responses.create(model=model, input="Hi")
        assert failed.value.status_code == 502
        with pytest.raises(openai.APIStatusError) as streamed:
            async with client.responses.stream(model=model, input="Hi") as stream:
                async for _ in stream:
                    pass
        assert streamed.value.status_code == 502


@pytest.mark.parametrize("model", sorted(UPSTREAM))
async def test_a_stream_cut_midway_ends_failed_never_completed(
    rbridge: BackgroundServer, fakes: dict[str, tuple[Fake, str]], model: str
) -> None:
    fake = fakes[UPSTREAM[model]][0]
    fake.reply = Reply(text="a long answer that will not finish " * 3)
    cut = 4 if model == "gpt" else 6  # a Responses stream opens its message in 4 events
    fake.break_after = cut
    response = await post(rbridge, {"model": model, "input": "Hi", "stream": True})
    assert response.status_code == 200
    events = events_of(response.text)
    kinds = [event.type for event in events]
    assert "response.output_text.delta" in kinds
    assert kinds[-2:] == ["error", "response.failed"]
    assert "response.completed" not in kinds
    assert events[-2].code == "upstream_stream_cut"
    assert events[-1].response.status == "failed"
    assert events[-1].response.error.code == "server_error"
    ident = events[0].response.id
    async with httpx2.AsyncClient() as http:
        fetched = await http.get(f"{rbridge.url}/v1/responses/{ident}", headers=AUTH)
    assert fetched.status_code == 404
    fake.break_after = cut
    async with (
        openai.AsyncOpenAI(
            base_url=f"{rbridge.url}/v1", api_key=CLIENT_KEY, max_retries=0
        ) as client,
        client.responses.stream(model=model, input="Hi") as stream,
    ):
        kinds = [event.type async for event in stream]
        with pytest.raises(RuntimeError, match=r"response\.completed"):
            await stream.get_final_response()
    assert kinds[-1] == "response.failed"


@pytest.mark.parametrize("model", sorted(UPSTREAM))
@pytest.mark.parametrize("stream", [True, False])
async def test_client_disconnect_cancels_upstream(
    rbridge: BackgroundServer, fakes: dict[str, tuple[Fake, str]], stream: bool, model: str
) -> None:
    body = {"model": model, "input": "Hi", "stream": stream}
    fake = fakes[UPSTREAM[model]][0]
    await leave_early_cancels_upstream(fake, f"{rbridge.url}/v1/responses", body)
