"""A tool parameter the model cannot send is refused with the tool, the parameter and advice."""

from __future__ import annotations

import socket
import warnings
from collections.abc import Callable
from typing import Any

import pytest

from good_agent import Agent, RunContext, ToolDefinitionError, tool


def test_a_socket_parameter_names_the_tool_the_parameter_and_what_to_do() -> None:
    with pytest.raises(ToolDefinitionError) as caught:

        @tool
        def send(data: str, sock: socket.socket) -> str:
            """Send data."""
            return data

    message = str(caught.value)
    assert "tool 'send'" in message
    assert "parameter 'sock'" in message and "'socket.socket'" in message
    for advice in ("pydantic model", "RunContext", "injected"):
        assert advice in message
    assert "arbitrary_types_allowed" not in message


def test_a_callable_parameter_is_refused_the_same_way() -> None:
    def apply(n: int, fn: Callable[[int], int]) -> int:
        """Apply fn."""
        return fn(n)

    expected = r"parameter 'fn' has type 'Callable\[\[int\], int\]'"
    with pytest.raises(ToolDefinitionError, match=expected):
        tool(apply)


def test_a_nested_unschemable_type_is_named() -> None:
    def pool(socks: list[socket.socket]) -> int:
        """Count sockets."""
        return len(socks)

    expected = r"parameter 'socks' has type 'list\[socket.socket\]'"
    with pytest.raises(ToolDefinitionError, match=expected):
        tool(pool)


def test_the_advice_works_a_dependency_reaches_the_object() -> None:
    @tool
    def send(ctx: RunContext[socket.socket], data: str) -> str:
        """Send data."""
        return type(ctx.deps).__name__

    assert list(send.signature["function"]["parameters"]["properties"]) == ["data"]


def test_an_unannotated_parameter_warns_naming_it() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        @tool
        def echo(value, times: int = 1) -> str:  # type: ignore[no-untyped-def]
            """Echo."""
            return str(value) * times

    [warning] = [w for w in caught if "echo" in str(w.message)]
    assert "parameter 'value'" in str(warning.message)
    assert "{}" in str(warning.message)
    assert warning.filename == __file__  # points at the tool's definition
    assert echo.signature["function"]["parameters"]["properties"]["value"] == {}


def test_annotated_tools_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")

        @tool
        def fine(value: Any, agent: Agent | None = None) -> str:
            """Fine."""
            return str(value)

    assert fine.signature["function"]["parameters"]["properties"]["value"] == {}
