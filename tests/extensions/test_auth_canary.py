"""AuthInjector: a canary secret reaches the tool and nothing else.

A full conversation with citations, caching, logging, every event recorded, tools
that succeed, fail, and even echo the secret; then everything observable is
serialized and searched for the canary.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Literal

import anyio
import pytest
from canary_shapes import RAISED, RETURNED, Inner, Record, deep_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import SecretStr

from good_agent import (
    Agent,
    AgentComponent,
    AgentEvents,
    EventContext,
    SecretRegistry,
    ToolError,
    tool,
)
from good_agent.extensions import (
    AuthInjector,
    CitationManager,
    MemoryStore,
    Rate,
    RateLimiter,
    ToolCache,
    ToolLogger,
    credential_scope,
)
from good_agent.testing import ScriptedModel
from good_agent.types.messages import render_value

pytestmark = pytest.mark.anyio

CANARY = "canary-7f3a9c1e-secret-token"
API_KEY = "canary-api-key-55b1"


class EveryEvent(AgentComponent):
    """Connects to every event and keeps the repr of each payload."""

    def __init__(self) -> None:
        super().__init__()
        self.reprs: list[str] = []

    async def install(self, agent: Agent) -> None:
        await super().install(agent)
        for event in AgentEvents:
            agent.events.on(event, self.record, priority=-50_000)

    def record(self, ctx: EventContext) -> None:
        self.reprs.append(f"{ctx.event}: {ctx.payload!r}")


def make_tools(received: list[Any]) -> list[Any]:
    @tool
    async def fetch(url: str, headers: dict[str, SecretStr]) -> dict[str, Any]:
        """Fetch a page."""
        received.append(headers["Authorization"].get_secret_value())
        if "fail" in url:
            raise PermissionError(f"403 for {headers['Authorization'].get_secret_value()}")
        return {"url": url, "title": "A page", "note": f"auth was {headers['Authorization']}"}

    @tool
    def search(query: str, api_key: SecretStr) -> str:
        """Search."""
        received.append(api_key.get_secret_value())
        if query == "leak":
            return f"debug: key={api_key.get_secret_value()}"
        return f"results for {query}"

    return [fetch, search]


async def token_provider() -> str:
    return CANARY


async def test_canary_secret_never_leaks(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    received: list[Any] = []
    store = MemoryStore()
    recorder = EveryEvent()
    auth = AuthInjector().bearer(token_provider, tools=["fetch"]).api_key(API_KEY, tools=["search"])
    model = ScriptedModel(
        [
            ScriptedModel.tool_calls(
                ("fetch", {"citation_idx": 1}),
                ("search", {"query": "cats"}),
            ),
            ScriptedModel.tool_calls(
                ("fetch", {"citation_idx": 1}),
                ("search", {"query": "leak"}),
                ("fetch", {"citation_idx": 2}),
                ("fetch", {"citation_idx": 9}),
                ("search", {"query": "x", "api_key": "model-supplied"}),
            ),
            "Done [1].",
        ]
    )
    agent = Agent(
        "You research.",
        model=model,
        tools=make_tools(received),
        extensions=[
            recorder,
            ToolLogger(),
            ToolCache(store, tools=["fetch", "search"]),
            CitationManager(),
            RateLimiter(default=Rate(100)),
            auth,
        ],
    )
    async with agent:
        await agent.call("Read https://example.com/page and https://example.com/fail please.")

    # The tools did get the secrets: fetch twice (the page, then cached; the failure),
    # search twice ("cats", "leak"); a model-supplied api_key is rejected by the schema.
    assert received.count(f"Bearer {CANARY}") == 2
    assert received.count(API_KEY) == 2

    observed: dict[str, str] = {}
    observed["requests"] = json.dumps(
        [
            {
                "messages": [m.model_dump(mode="json") for m in r.messages],
                "tools": r.tools,
                "tool_choice": r.tool_choice,
            }
            for r in model.requests
        ]
    )
    observed["history"] = json.dumps([m.model_dump(mode="json") for m in agent.messages])
    formatter = logging.Formatter("%(message)s")
    observed["logs"] = "\n".join(
        formatter.format(r) + repr(vars(r)) + str(r.exc_text) for r in caplog.records
    )
    observed["events"] = "\n".join(recorder.reprs)
    items = await store.items()
    observed["cache"] = json.dumps(items)
    observed["errors"] = json.dumps(
        [m.content for m in agent.messages if getattr(m, "is_error", False)]
    )
    observed["component reprs"] = repr(auth) + repr(auth.rules)

    for name, text in observed.items():
        assert CANARY not in text, f"canary found in {name}"
        assert API_KEY not in text, f"api key found in {name}"

    # What was observed is real: the conversation happened as scripted.
    assert len(model.requests) == 3
    assert len(items) == 3 and all(k.startswith("v1:") for k, _ in items)
    assert "[REDACTED]" in observed["history"]  # the echoed key was redacted
    assert "PermissionError" in observed["errors"]
    assert "Valid citation indices" in observed["errors"]
    assert "api_key: unexpected field" in observed["errors"]
    assert any("tool_call_id" in r for r in observed["logs"].splitlines())
    assert sum("tool:call:after" in r for r in recorder.reprs) == 7
    for request in model.requests:
        for signature in request.tools:
            props = signature["function"]["parameters"]["properties"]
            assert "headers" not in props and "api_key" not in props


async def test_scope_identifier_is_a_keyed_hash() -> None:
    a = credential_scope({"api_key": SecretStr(CANARY)})
    b = credential_scope({"api_key": SecretStr("other")})
    assert a and b and a != b and CANARY not in a
    assert credential_scope({"api_key": SecretStr(CANARY)}) == a
    assert credential_scope({"query": "x"}) is None
    assert credential_scope({"api_key": SecretStr(CANARY)}, key=b"other") != a
    auth = AuthInjector({"api_key": CANARY})
    assert auth.scope_of("t", {"api_key": SecretStr(CANARY)}) == a


async def test_rules_are_scoped_by_tool_and_predicate() -> None:
    seen: dict[str, Any] = {}

    @tool
    def first(api_key: SecretStr | None = None) -> str:
        """First."""
        seen["first"] = api_key
        return "1"

    @tool
    def second(api_key: SecretStr | None = None) -> str:
        """Second."""
        seen["second"] = api_key
        return "2"

    calls = 0

    def provider() -> SecretStr:
        nonlocal calls
        calls += 1
        return SecretStr(f"rotating-{calls}")

    auth = AuthInjector({"api_key": provider}, when=lambda t: t.name == "second")
    async with Agent(tools=[first, second], extensions=[auth]) as agent:
        signatures = {s["function"]["name"]: s for s in await agent.tool_signatures()}
        await agent.invoke("first", api_key="model-choice")
        await agent.invoke("second")
        await agent.invoke("second")
    assert "api_key" in signatures["first"]["function"]["parameters"]["properties"]
    assert "api_key" not in signatures["second"]["function"]["parameters"]["properties"]
    assert seen["second"].get_secret_value() == "rotating-2"
    assert calls == 2


async def test_failing_provider_is_a_tool_error_without_details() -> None:
    @tool
    def guarded(api_key: SecretStr) -> str:
        """Guarded."""
        return "never"

    def broken() -> str:
        raise RuntimeError("vault says no")

    async with Agent(tools=[guarded], extensions=[AuthInjector({"api_key": broken})]) as agent:
        response = await agent.invoke("guarded")
    assert not response.success
    assert response.error == "credentials for tool 'guarded' could not be obtained (RuntimeError)"


# --- Every shape a tool can put a secret in ----------------------------------------

OBSERVER_PRIORITIES = (10**9, 0, -(10**9))


class DeepRecorder(AgentComponent):
    """Snapshots, at the moment of each event and at several priorities, everything
    an observer can read from the payload."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    async def install(self, agent: Agent) -> None:
        await super().install(agent)
        for event in AgentEvents:
            for priority in OBSERVER_PRIORITIES:
                agent.events.on(event, self._recorder(priority), priority=priority)

    def _recorder(self, priority: int) -> Any:
        def record(ctx: EventContext) -> None:
            self.texts.append(f"{ctx.event}@{priority}: {deep_text(ctx.payload)}")

        return record


async def _leak_run(
    build: Any, *, raises: bool, tool_errors: Literal["report", "raise"], caplog: Any
) -> tuple[dict[str, str], Agent, BaseException | None]:
    """One conversation whose tool returns or raises ``build(secret)``; everything
    observable, as text."""
    caplog.set_level(logging.DEBUG)
    revealed: list[str] = []

    @tool
    def leaky(query: str, api_key: SecretStr) -> Any:
        """Look something up."""
        secret = api_key.get_secret_value()
        revealed.append(secret)
        if raises:
            raise build(secret)
        return build(secret)

    store = MemoryStore()
    recorder = DeepRecorder()
    model = ScriptedModel([ScriptedModel.tool_call("leaky", {"query": "q"}), "Done."])
    agent = Agent(
        model=model,
        tools=[leaky],
        tool_errors=tool_errors,
        extensions=[
            recorder,
            ToolLogger(),
            ToolCache(store, tools=["leaky"]),
            AuthInjector().api_key(API_KEY, tools=["leaky"]),
        ],
    )
    raised: BaseException | None = None
    async with agent:
        try:
            await agent.call("Look it up")
        except Exception as exc:
            raised = exc
    assert revealed == [API_KEY]  # the tool did get the secret
    observed = {
        "requests": json.dumps(
            [[m.model_dump(mode="json") for m in r.messages] for r in model.requests]
        ),
        "history": json.dumps([m.model_dump(mode="json") for m in agent.messages]),
        "logs": "\n".join(
            logging.Formatter("%(message)s").format(r) + repr(vars(r)) for r in caplog.records
        ),
        "events": "\n".join(recorder.texts),
        "cache": json.dumps(await store.items()),
        "raised": deep_text(raised) if raised is not None else "",
    }
    return observed, agent, raised


def _assert_clean(observed: dict[str, str]) -> None:
    for name, text in observed.items():
        assert API_KEY not in text, f"secret found in {name}"
        assert API_KEY.encode().hex() not in text, f"secret (hex) found in {name}"


@pytest.mark.parametrize("shape", sorted(RETURNED))
async def test_returned_secret_never_leaks(shape: str, caplog: pytest.LogCaptureFixture) -> None:
    observed, agent, raised = await _leak_run(
        RETURNED[shape], raises=False, tool_errors="report", caplog=caplog
    )
    assert raised is None
    _assert_clean(observed)
    tool_message = next(m for m in agent.messages if m.role == "tool")
    assert not tool_message.is_error
    assert "REDACTED" in tool_message.content  # the value arrived, redacted


@pytest.mark.parametrize("tool_errors", ["report", "raise"])
@pytest.mark.parametrize("shape", sorted(RAISED))
async def test_raised_secret_never_leaks(
    shape: str, tool_errors: Literal["report", "raise"], caplog: pytest.LogCaptureFixture
) -> None:
    original_type = type(RAISED[shape](API_KEY))
    observed, agent, raised = await _leak_run(
        RAISED[shape], raises=True, tool_errors=tool_errors, caplog=caplog
    )
    _assert_clean(observed)
    reported = tool_errors == "report" or issubclass(original_type, ToolError)
    if reported:
        assert raised is None
        tool_message = next(m for m in agent.messages if m.role == "tool")
        assert tool_message.is_error
    else:
        # The caller gets the tool's own exception type, redacted.
        assert isinstance(raised, original_type)
    assert "TOOL_CALL_ERROR" in observed["events"] or "tool:call:error" in observed["events"]


def _with_secret(leaf: Any) -> Any:
    return API_KEY if leaf == "SECRET" else leaf


_leaves = st.one_of(
    st.sampled_from(["SECRET", "plain", f"x{API_KEY}y", 7, None, True, 2.5]),
    st.sampled_from([API_KEY.encode(), b"harmless", f"{API_KEY}!".encode()]),
).map(_with_secret)
_keys = st.one_of(
    st.sampled_from(["a", "SECRET", f"k-{API_KEY}"]).map(_with_secret),
    st.tuples(st.just("t"), st.sampled_from(["SECRET", "z"]).map(_with_secret)),
)
_nested = st.recursive(
    _leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.lists(children, max_size=4).map(tuple),
        st.frozensets(st.one_of(_leaves.filter(lambda v: not isinstance(v, float))), max_size=3),
        st.dictionaries(_keys, children, max_size=3),
        st.builds(lambda c: Inner(note=str(c)[:40] + API_KEY, raw=API_KEY.encode()), children),
        st.builds(lambda c: Record(token=repr(c)), children),
    ),
    max_leaves=12,
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(value=_nested)
def test_nested_containers_never_leak(value: Any, caplog: pytest.LogCaptureFixture) -> None:
    caplog.clear()
    observed, _, raised = anyio.run(
        lambda: _leak_run(lambda _: value, raises=False, tool_errors="report", caplog=caplog)
    )
    assert raised is None
    _assert_clean(observed)


@settings(max_examples=300, deadline=None)
@given(value=_nested)
def test_registry_redacts_any_nesting_and_keeps_clean_values(value: Any) -> None:
    registry = SecretRegistry()
    registry.add(API_KEY)
    redacted = registry.redact(value)
    assert API_KEY not in deep_text(redacted)
    assert API_KEY not in render_value(redacted)
    if API_KEY not in deep_text(value):
        assert redacted is value
    registry_without = SecretRegistry()
    assert registry_without.redact(value) is value


async def test_redact_response_covers_value_and_error() -> None:
    from good_agent import ToolResponse

    auth = AuthInjector()
    auth.remember(SecretStr(API_KEY))
    response = ToolResponse(
        tool_name="t", tool_call_id="c", response={(API_KEY,): {API_KEY}}, error=f"e {API_KEY}"
    )
    redacted = auth.redact_response(response)
    assert API_KEY not in repr(redacted) and redacted.error == "e [REDACTED]"
    clean = ToolResponse(tool_name="t", tool_call_id="c", response=["fine"])
    assert auth.redact_response(clean) is clean
