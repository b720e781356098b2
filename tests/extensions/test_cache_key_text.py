"""The cache key's JSON text: the C encoder made once writes what ``json.dumps`` writes;
binary data (an image argument) stands as its SHA-256, never copied into the text."""

from __future__ import annotations

import hashlib
import json
import os
import threading
import tracemalloc
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, SecretStr

from good_agent import Agent, BinaryContent, ToolCache
from good_agent.extensions._common import key_json

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=20,
)


@given(json_values)
def test_the_text_is_sorted_compact_json(value: Any) -> None:
    text, found = key_json(value)
    assert text == json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert found == []


class Page(BaseModel):
    number: int


def test_secrets_are_redacted_and_returned_models_dumped_sets_sorted() -> None:
    token = SecretStr("s3cret")
    text, found = key_json({"b": {"token": token}, "a": [Page(number=2), {3, 1}]})
    assert text == '{"a":[{"number":2},[1,3]],"b":{"token":"[REDACTED]"}}'
    assert found == [token] and "s3cret" not in text
    # The next call starts with no secrets of its own.
    assert key_json({"x": 1}) == ('{"x":1}', [])


def test_what_json_cannot_hold_is_refused_and_leaves_no_secret_behind() -> None:
    with pytest.raises(TypeError):
        key_json({"token": SecretStr("s3cret"), "when": object()})
    assert key_json([SecretStr("other")])[1][0].get_secret_value() == "other"


def test_threads_collect_their_own_secrets() -> None:
    seen: dict[int, list[str]] = {}

    def work(index: int) -> None:
        found: list[str] = []
        for _ in range(200):
            _, secrets = key_json({"k": SecretStr(f"secret-{index}")})
            found.extend(s.get_secret_value() for s in secrets)
        seen[index] = found

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(values == [f"secret-{i}"] * 200 for i, values in seen.items())


@given(st.binary(max_size=64), st.binary(max_size=64))
def test_binary_data_stands_as_its_sha256(first: bytes, second: bytes) -> None:
    text, found = key_json({"data": first, "image": BinaryContent(first, "image/png")})
    digest = hashlib.sha256(first).hexdigest()
    assert text == (
        f'{{"data":"bytes:sha256:{digest}",'
        f'"image":{{"data":"bytes:sha256:{digest}","kind":"binary","media_type":"image/png"}}}}'
    )
    assert found == []
    assert (key_json({"data": second})[0] == key_json({"data": first})[0]) == (first == second)
    assert key_json({"data": bytearray(first)}) == key_json({"data": memoryview(first)})


def test_a_5_mb_image_argument_is_not_copied_into_the_cache_key() -> None:
    image = BinaryContent(b"\x89PNG\r\n\x1a\n" + os.urandom(5 * 1024 * 1024), "image/png")
    cache = ToolCache(tools=["draw"])
    cache.agent = Agent(extensions=[cache])
    try:
        tracemalloc.start()
        base, _ = tracemalloc.get_traced_memory()
        key = cache.key_for("draw", {"image": image, "raw": image.data})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        cache.agent.close_sync()
    assert key.startswith("v1:draw:")
    assert peak - base < len(image.data) // 10, "the key copied the image's bytes"
