"""Strict JSON answers through prompted upstreams: the openai SDK's ``parse()`` and
``stream()`` helpers get JSON matching their schema, or an ``upstream_invalid_reply``
error, never prose with a 200 (whole and streamed, over loopback)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import openai
import pytest
from bridge_fakes import Fake, Reply
from bridge_harness import CLIENT_KEY, fake_entry
from pydantic import BaseModel

from good_agent.server import create_app, parse_config
from good_agent.server.background import BackgroundServer

pytestmark = pytest.mark.anyio


class Weather(BaseModel):
    city: str
    celsius: float


class GetWeather(BaseModel):
    """Weather for a city."""

    city: str


PROSE = "It is sunny and 21 degrees in Paris today."
ANSWER = '{"city": "Paris", "celsius": 21}'
FEEDBACK = "Your answer could not be used"

# name -> (model id, text format, whether its profile has constrained decoding)
UPSTREAMS = {
    "hermes": ("hermes-3-llama-3.1-8b", "hermes", True),
    "mistral": ("mistral-7b-instruct", "mistral", True),
    "pythonic": ("local-model", "pythonic", False),
}


@pytest.fixture(scope="module")
def strict_bridge(fakes: dict[str, tuple[Fake, str]]) -> Iterator[BackgroundServer]:
    models = [
        fake_entry(fakes, name, "openai", "text", model, mode="validated", text_format=fmt)
        for name, (model, fmt, _) in UPSTREAMS.items()
    ]
    models.append(fake_entry(fakes, "gpt", "openai", "openai", "gpt-4.1", mode="native"))
    config = parse_config({"server": {"api_keys_env": "GA_TEST_CLIENT_KEYS"}, "models": models})
    server = BackgroundServer(create_app(config)).start()
    yield server
    server.stop()


@pytest.fixture
async def strict_client(
    strict_bridge: BackgroundServer, anyio_backend: str
) -> AsyncIterator[openai.AsyncOpenAI]:
    async with openai.AsyncOpenAI(
        base_url=f"{strict_bridge.url}/v1", api_key=CLIENT_KEY, max_retries=0
    ) as client:
        yield client


def script(fake: Fake, *answers: str) -> None:
    """The fake answers ``answers[n]`` to its n-th request (the last one after that)."""

    def answer(body: dict[str, Any]) -> Reply:
        return Reply(text=answers[min(len(fake.requests) - 1, len(answers) - 1)])

    fake.script = answer


def call_kw(model: str) -> dict[str, Any]:
    return {
        "model": model,
        "messages": [{"role": "user", "content": "Weather in Paris?"}],
        "tools": [openai.pydantic_function_tool(GetWeather)],
        "response_format": Weather,
    }


def check_retry(fake: Fake, model: str) -> None:
    """The second request carries the prose, the problems and, on an upstream with
    constrained decoding, the schema as its response_format and no tools."""
    assert len(fake.requests) == 2
    first, retry = fake.requests
    assert "response_format" not in first  # calls were possible: the schema was prompted
    messages = retry["messages"]
    assert messages[-2] == {"role": "assistant", "content": PROSE}
    assert FEEDBACK in messages[-1]["content"] and "not JSON" in messages[-1]["content"]
    assert '"celsius"' in messages[-1]["content"]
    if UPSTREAMS[model][2]:
        schema = retry["response_format"]["json_schema"]["schema"]
        assert schema["required"] == ["city", "celsius"]
        assert "get_weather" not in json.dumps(messages)  # no tools on the constrained retry
    else:
        assert "response_format" not in retry
        assert "GetWeather" in messages[0]["content"]
    assert not fake.problems, fake.problems


@pytest.mark.parametrize("model", list(UPSTREAMS))
async def test_prose_then_json_gives_parsed_output(
    strict_client: openai.AsyncOpenAI, fakes: dict[str, tuple[Fake, str]], model: str
) -> None:
    fake = fakes["text"][0]
    script(fake, PROSE, ANSWER)
    completion = await strict_client.chat.completions.parse(**call_kw(model))
    choice = completion.choices[0]
    assert choice.finish_reason == "stop"
    assert choice.message.parsed == Weather(city="Paris", celsius=21)
    assert completion.usage is not None and completion.usage.prompt_tokens == 22  # both asks
    check_retry(fake, model)


@pytest.mark.parametrize("model", list(UPSTREAMS))
async def test_prose_then_json_streamed_gives_parsed_output(
    strict_client: openai.AsyncOpenAI, fakes: dict[str, tuple[Fake, str]], model: str
) -> None:
    fake = fakes["text"][0]
    script(fake, PROSE, ANSWER)
    texts: list[str] = []
    async with strict_client.chat.completions.stream(**call_kw(model)) as stream:
        async for event in stream:
            if event.type == "content.delta":
                texts.append(event.delta)
        final = await stream.get_final_completion()
    # Held until checked: one delta (after the role chunk's ""), the prose never sent.
    assert [text for text in texts if text] == [ANSWER]
    assert final.choices[0].message.parsed == Weather(city="Paris", celsius=21)
    assert final.choices[0].finish_reason == "stop"
    check_retry(fake, model)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("model", list(UPSTREAMS))
async def test_prose_twice_is_an_error_not_a_200(
    strict_client: openai.AsyncOpenAI,
    fakes: dict[str, tuple[Fake, str]],
    model: str,
    stream: bool,
) -> None:
    fake = fakes["text"][0]
    script(fake, PROSE, "Sorry, 21 degrees and sunny.")
    with pytest.raises(openai.APIError) as failed:
        if stream:
            async with strict_client.chat.completions.stream(**call_kw(model)) as events:
                async for _ in events:
                    pass
        else:
            await strict_client.chat.completions.parse(**call_kw(model))
    error = failed.value
    assert error.code == "upstream_invalid_reply"
    assert isinstance(error, openai.APIStatusError) and error.status_code == 502
    assert "strict response_format schema" in error.message
    assert "not JSON" in error.message
    assert len(fake.requests) == 2


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
async def test_json_breaking_the_schema_is_asked_again(
    strict_client: openai.AsyncOpenAI, fakes: dict[str, tuple[Fake, str]], stream: bool
) -> None:
    fake = fakes["text"][0]
    script(fake, '{"city": "Paris"}', "```json\n" + ANSWER + "\n```")
    if stream:
        async with strict_client.chat.completions.stream(**call_kw("hermes")) as events:
            final = await events.get_final_completion()
    else:
        final = await strict_client.chat.completions.parse(**call_kw("hermes"))
    assert final.choices[0].message.content == ANSWER  # the fence is taken off
    assert final.choices[0].message.parsed == Weather(city="Paris", celsius=21)
    feedback = fake.requests[1]["messages"][-1]["content"]
    assert "celsius" in feedback and "not JSON" not in feedback


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
async def test_a_valid_answer_or_a_call_is_sent_once(
    strict_client: openai.AsyncOpenAI, fakes: dict[str, tuple[Fake, str]], stream: bool
) -> None:
    fake = fakes["text"][0]
    script(fake, ANSWER)
    if stream:
        async with strict_client.chat.completions.stream(**call_kw("mistral")) as events:
            final = await events.get_final_completion()
    else:
        final = await strict_client.chat.completions.parse(**call_kw("mistral"))
    assert final.choices[0].message.parsed == Weather(city="Paris", celsius=21)
    assert len(fake.requests) == 1
    fake.reset()
    script(fake, 'Checking. [TOOL_CALLS][{"name": "GetWeather", "arguments": {"city": "Oslo"}}]')
    if stream:
        async with strict_client.chat.completions.stream(**call_kw("mistral")) as events:
            final = await events.get_final_completion()
    else:
        final = await strict_client.chat.completions.parse(**call_kw("mistral"))
    message = final.choices[0].message
    assert final.choices[0].finish_reason == "tool_calls"
    assert message.tool_calls[0].function.parsed_arguments == GetWeather(city="Oslo")
    # Beside calls, the content of a strict request is empty; the text is reasoning.
    assert not message.content  # None whole; the role chunk's "" streamed
    assert (message.model_extra or {}).get("reasoning_content") == "Checking."
    assert len(fake.requests) == 1


async def test_an_answer_cut_off_is_passed_on_for_the_client_to_report(
    strict_client: openai.AsyncOpenAI, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = fakes["text"][0]
    script(fake, '{"city": "Par')
    original = fake.whole

    def cut_off(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
        answer = original(reply, body)
        answer["choices"][0]["finish_reason"] = "length"
        return answer

    fake.whole = cut_off  # type: ignore[method-assign]
    try:
        with pytest.raises(openai.LengthFinishReasonError):
            await strict_client.chat.completions.parse(**call_kw("hermes"))
    finally:
        del fake.whole
    assert len(fake.requests) == 1  # not asked again: the client is told it was cut off


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
async def test_responses_clients_get_the_same_guarantee(
    rclient: openai.AsyncOpenAI, fakes: dict[str, tuple[Fake, str]], stream: bool
) -> None:
    fake = fakes["text"][0]
    script(fake, PROSE, ANSWER)
    kw: dict[str, Any] = {
        "model": "local",
        "input": "Weather in Paris?",
        "tools": [openai.pydantic_function_tool(GetWeather)["function"] | {"type": "function"}],
        "text_format": Weather,
    }
    if stream:
        async with rclient.responses.stream(**kw) as events:
            async for _ in events:
                pass
            response = await events.get_final_response()
    else:
        response = await rclient.responses.parse(**kw)
    assert response.output_parsed == Weather(city="Paris", celsius=21)
    assert len(fake.requests) == 2 and FEEDBACK in json.dumps(fake.requests[1]["messages"])
    fake.reset()
    script(fake, PROSE)
    with pytest.raises(openai.APIStatusError) as failed:
        if stream:
            async with rclient.responses.stream(**kw) as events:
                async for _ in events:
                    pass
        else:
            await rclient.responses.parse(**kw)
    assert failed.value.status_code == 502 and "upstream_invalid_reply" in str(failed.value.body)


async def test_an_upstream_enforcing_strict_schemas_streams_as_it_comes(
    strict_client: openai.AsyncOpenAI, fakes: dict[str, tuple[Fake, str]]
) -> None:
    fake = fakes["openai"][0]
    fake.reply = Reply(text=ANSWER)
    texts: list[str] = []
    async with strict_client.chat.completions.stream(**call_kw("gpt")) as stream:
        async for event in stream:
            if event.type == "content.delta":
                texts.append(event.delta)
        final = await stream.get_final_completion()
    assert len(texts) > 1 and "".join(texts) == ANSWER  # not held back
    assert final.choices[0].message.parsed == Weather(city="Paris", celsius=21)
    assert fake.requests[-1]["response_format"]["json_schema"]["strict"] is True


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
async def test_a_retry_that_calls_a_tool_is_a_tool_call(
    strict_client: openai.AsyncOpenAI, fakes: dict[str, tuple[Fake, str]], stream: bool
) -> None:
    fake = fakes["text"][0]
    script(fake, PROSE, '[GetWeather(city="Paris")]')
    if stream:
        async with strict_client.chat.completions.stream(**call_kw("pythonic")) as events:
            final = await events.get_final_completion()
    else:
        final = await strict_client.chat.completions.parse(**call_kw("pythonic"))
    choice = final.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.tool_calls[0].function.parsed_arguments == GetWeather(city="Paris")
    assert not choice.message.content and PROSE not in json.dumps(final.model_dump())
    assert len(fake.requests) == 2
