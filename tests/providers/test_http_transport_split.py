"""The shared HTTP transport is a base only; OpenAI's Chat Completions transport is OpenAI's."""

from __future__ import annotations

import inspect

import pytest

from good_agent.http import http_transport
from good_agent.http.http_transport import HttpTransport
from good_agent.providers.builtin_transports import HTTP_TRANSPORTS
from good_agent.providers.openai.http_transport import OpenAIHttpTransport


def test_the_shared_base_is_not_a_transport_of_its_own() -> None:
    with pytest.raises(TypeError, match="abstract"):
        HttpTransport("m", base_url="http://127.0.0.1:1/v1")  # type: ignore[abstract]


def test_the_shared_base_knows_no_vendor_endpoint() -> None:
    source = inspect.getsource(http_transport)
    assert "chat/completions" not in source
    assert "api.openai.com" not in source
    assert "include_usage" not in source


def test_the_bridge_serves_openai_with_openais_own_transport() -> None:
    assert HTTP_TRANSPORTS["openai"] is OpenAIHttpTransport
    assert OpenAIHttpTransport.__module__ == "good_agent.providers.openai.http_transport"
    assert all(issubclass(kind, HttpTransport) for kind in HTTP_TRANSPORTS.values())


def test_openai_transport_keeps_its_endpoint_headers_and_stream_flag() -> None:
    transport = OpenAIHttpTransport("m", base_url="http://127.0.0.1:1/v1/", api_key="k")
    body = {"model": "m", "messages": []}
    assert transport.url(body, stream=True) == "http://127.0.0.1:1/v1/chat/completions"
    assert transport.headers() == {"Authorization": "Bearer k"}
    assert transport.wire_body(body, stream=False) is body
    assert transport.wire_body(body, stream=True) == {
        **body,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    assert OpenAIHttpTransport("m").base_url == "https://api.openai.com/v1"
