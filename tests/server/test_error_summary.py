"""Upstream failures are summarized for the client: status, a short reason, no page."""

from __future__ import annotations

from typing import Any

import pytest

from good_agent.server.common.errors import REASON_LIMIT, from_model_error, summarize
from good_agent.types.errors import (
    ModelOverloadedError,
    ModelRateLimitError,
    ModelResponseError,
)

TRACE = "Traceback (most recent call last):"
ANTHROPIC_529 = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}


@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        (503, {"error": {"message": "overloaded\n" + TRACE}}, "Service Unavailable: overloaded"),
        (500, f"<html><body>{TRACE}</body></html>", "Internal Server Error"),
        (500, {"error": TRACE}, "Internal Server Error"),
        (529, ANTHROPIC_529, ": Overloaded"),
        (502, {"detail": "bad gateway upstream"}, "Bad Gateway: bad gateway upstream"),
        (500, None, "Internal Server Error"),
        (500, {"error": {"message": 5}}, "Internal Server Error"),
    ],
)
def test_status_and_reason(status: int, body: Any, expected: str) -> None:
    error = ModelOverloadedError("raw text " * 100, provider="p", status_code=status, body=body)
    assert summarize(error) == f"HTTP {status}" + ("" if expected[0] == ":" else " ") + expected


def test_long_reasons_are_cut() -> None:
    body = {"error": {"message": "x" * 5000}}
    text = summarize(ModelOverloadedError("m", provider="p", status_code=500, body=body))
    assert len(text) <= len("HTTP 500 Internal Server Error: ") + REASON_LIMIT
    assert text.endswith("...")


def test_mapping_codes() -> None:
    invalid = from_model_error(ModelResponseError("p sent <html>", provider="p"), "m")
    assert (invalid.status, invalid.code) == (502, "upstream_invalid_reply")
    assert "<html>" not in invalid.message
    limited = ModelRateLimitError(
        "slow down", provider="p", status_code=429, body={"error": {"message": "slow down"}}
    )
    limited.retry_after = 2.5
    mapped = from_model_error(limited, "m")
    assert mapped.status == 429 and mapped.headers == {"retry-after": "3"}
    assert "HTTP 429 Too Many Requests: slow down" in mapped.message


def test_a_reply_error_on_a_200_is_described_by_its_message() -> None:
    error = ModelResponseError("p sent a JSON list where an object was due", status_code=200)
    assert summarize(error) == "p sent a JSON list where an object was due"
