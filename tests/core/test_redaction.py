"""SecretRegistry: secrets removed from values and exceptions, everything else kept."""

from __future__ import annotations

import traceback
from collections import OrderedDict, defaultdict
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, SecretStr

from good_agent import Agent, RedactedError, SecretRegistry, agent_secrets
from good_agent._util.memory import peak_of
from good_agent.core import redaction

SECRET = "registry-secret-8841"


def registry() -> SecretRegistry:
    found = SecretRegistry()
    found.add(SecretStr(SECRET))
    return found


def test_values_without_secrets_are_the_same_objects() -> None:
    value = {"a": [1, (2, "x")], "b": {3, 4}, "c": b"bytes"}
    assert registry().redact(value) is value
    assert SecretRegistry().redact({"k": SECRET})["k"] == SECRET  # nothing registered


def test_container_types_are_kept() -> None:
    ordered = OrderedDict([("x", SECRET)])
    counts: defaultdict[str, list[str]] = defaultdict(list, {"x": [SECRET]})
    assert type(registry().redact(ordered)) is OrderedDict
    redacted_counts = registry().redact(counts)
    assert isinstance(redacted_counts, defaultdict) and redacted_counts["x"] == ["[REDACTED]"]
    assert registry().redact(bytearray(SECRET.encode())) == bytearray(b"[REDACTED]")


def test_keys_that_differ_only_by_a_secret_are_all_kept() -> None:
    redacted = registry().redact({f"a{SECRET}": 1, "a[REDACTED]": 2})
    assert sorted(redacted.values()) == [1, 2] and len(redacted) == 2


def test_frozen_models_and_extra_fields() -> None:
    class Frozen(BaseModel):
        model_config = ConfigDict(frozen=True, extra="allow")
        token: str

    model = Frozen(token=SECRET, other=f"x{SECRET}")  # type: ignore[call-arg]
    redacted = registry().redact(model)
    assert isinstance(redacted, Frozen) and SECRET not in redacted.model_dump_json()
    assert model.token == SECRET  # the original is not changed


def test_cycles_end() -> None:
    cyclic: list[Any] = ["x"]
    cyclic.append(cyclic)
    assert registry().redact(cyclic) is cyclic


@pytest.mark.parametrize(
    "error",
    [
        UnicodeDecodeError("utf-8", SECRET.encode(), 0, 1, f"bad {SECRET}"),
        SyntaxError(f"bad {SECRET}", ("f.py", 1, 1, f"x = '{SECRET}'", 1, 2)),
        StopIteration(SECRET),
        SystemExit(SECRET),
        AttributeError(f"no {SECRET}", name=SECRET, obj=SECRET),
        ImportError(f"no {SECRET}", name=SECRET, path=f"/{SECRET}"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_built_in_exception_attributes(error: BaseException) -> None:
    cleaned = registry().redact_error(error)
    text = "".join(traceback.format_exception(cleaned)) + repr(cleaned.args)
    attributes = [getattr(cleaned, n, None) for n in redaction._ERROR_ATTRIBUTES]
    assert SECRET not in text + repr(attributes)


def test_custom_str_keeps_the_type_and_its_name() -> None:
    class Vault:
        def __str__(self) -> str:
            return SECRET

    class VaultError(Exception):
        vault = Vault()

        def __str__(self) -> str:
            return f"vault {self.vault} refused"

    cleaned = registry().redact_error(VaultError())
    assert isinstance(cleaned, VaultError) and type(cleaned).__name__ == "VaultError"
    assert str(cleaned) == "vault [REDACTED] refused" and SECRET not in repr(cleaned)


def test_an_exception_that_cannot_be_cleaned_in_place_is_replaced(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Stubborn(Exception):
        def __str__(self) -> str:
            return f"stubborn {SECRET}"

    class Incompatible(Exception):
        __slots__ = ("extra",)

    monkeypatch.setattr(redaction, "_redacting_subclass", lambda cls: Incompatible)
    cause = ValueError(SECRET)
    error = Stubborn()
    error.__cause__ = cause
    cleaned = registry().redact_error(error)
    assert isinstance(cleaned, RedactedError)
    assert str(cleaned) == "Stubborn: stubborn [REDACTED]"
    assert SECRET not in "".join(traceback.format_exception(cleaned))


def test_registry_is_bounded_and_per_agent() -> None:
    small = SecretRegistry(limit=2)
    for n in range(3):
        small.add(f"rotating-token-{n}")
    assert len(small) == 2
    assert small.redact_text("rotating-token-0 rotating-token-2") == "rotating-token-0 [REDACTED]"
    small.add("abc")  # too short to register
    assert len(small) == 2
    first, second = Agent(), Agent()
    agent_secrets(first).add(SECRET)
    assert agent_secrets(first) is agent_secrets(first) and not agent_secrets(second)


def test_each_agent_has_one_registry_which_goes_with_the_agent() -> None:
    import gc
    import threading

    class Holder:  # any object will do: the registry is kept by identity
        pass

    agent = Holder()
    first = agent_secrets(agent)
    assert not first  # empty, and still the agent's: an empty registry is not replaced
    assert agent_secrets(agent) is first
    assert agent_secrets(Holder()) is not first
    seen: list[SecretRegistry] = []
    fresh = Holder()

    def ask(holder: Holder) -> None:
        seen.append(agent_secrets(holder))

    threads = [threading.Thread(target=ask, args=(fresh,)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(registry) for registry in seen}) == 1
    before = len(redaction._REGISTRIES)
    del agent, fresh, threads
    gc.collect()
    assert len(redaction._REGISTRIES) <= before - 2


def _peak_beyond(work: Any) -> int:
    """Bytes allocated at the peak of ``work()`` beyond what was held before it."""
    work()  # first-use caches are not the image's cost
    return peak_of(work)


def test_a_5_mb_image_in_a_history_is_redacted_without_copies() -> None:
    """Redaction leaves binary parts without a secret as they are, and copies one
    holding a secret once (the issue's bound: at most one copy of a 5 MB image)."""
    import os

    from good_agent import BinaryContent
    from good_agent.types.messages import AssistantMessage, ToolCall, ToolMessage, UserMessage

    size = 5 * 1024 * 1024
    image = BinaryContent(b"\x89PNG\r\n\x1a\n" + os.urandom(size - 8), "image/png")
    marked = BinaryContent(image.data[: size - 20] + b"sk-secret-token-1234", "image/png")
    agent = Agent()
    secrets = agent_secrets(agent)
    secrets.add("sk-secret-token-1234")
    history = [
        UserMessage(content=["What is on this picture?", image]),
        AssistantMessage(content=None, tool_calls=[ToolCall(id="c1", name="d", arguments={})]),
        ToolMessage(tool_call_id="c1", tool_name="d", content="ok", media=[image]),
    ]
    try:
        assert _peak_beyond(lambda: secrets.redact(history)) < size // 10
        assert _peak_beyond(lambda: secrets.redact(image)) < size // 10
        redacted = secrets.redact(marked)
        assert b"sk-secret-token-1234" not in redacted.data
        assert _peak_beyond(lambda: secrets.redact(marked)) <= 1.2 * size
    finally:
        agent.close_sync()
