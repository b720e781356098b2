"""Schema generation from Python functions, and argument validation."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field

from good_agent import Agent, Tool, ToolArgumentsError, ToolDefinitionError, tool
from good_agent.tools import ToolRegistry
from good_agent.types.messages import ToolCall


class Color(Enum):
    RED = "red"
    BLUE = "blue"


class Address(BaseModel):
    street: str
    zip_code: str | None = None


class Person(BaseModel):
    name: str
    address: Address


def params_of(t: Tool) -> dict[str, Any]:
    return t.signature["function"]["parameters"]


def test_signature_is_openai_function_format() -> None:
    @tool
    def search(query: str) -> str:
        """Search the web."""
        return query

    sig = search.signature
    assert sig["type"] == "function"
    assert sig["function"]["name"] == "search"
    assert sig["function"]["description"] == "Search the web."
    assert sig["function"]["parameters"]["type"] == "object"
    assert sig["function"]["parameters"]["required"] == ["query"]


def test_optional_default_enum_literal_list_nested_and_docstring() -> None:
    @tool
    def f(
        query: str,
        limit: int = 5,
        color: Color = Color.RED,
        mode: Literal["fast", "slow"] = "fast",
        tags: list[str] | None = None,
        person: Person | None = None,
        score: Annotated[float, Field(description="from Field")] = 0.5,
    ) -> None:
        """Find things.

        More detail here.

        Args:
            query: What to look for.
            limit: How many results
                to return at most.
        """

    p = params_of(f)
    props = p["properties"]
    assert p["required"] == ["query"]
    assert f.description == "Find things.\n\nMore detail here."
    assert props["query"] == {"type": "string", "description": "What to look for."}
    assert props["limit"] == {
        "type": "integer",
        "default": 5,
        "description": "How many results to return at most.",
    }
    assert p["$defs"]["Color"]["enum"] == ["red", "blue"]
    assert props["mode"]["enum"] == ["fast", "slow"]
    assert props["tags"]["anyOf"] == [
        {"type": "array", "items": {"type": "string"}},
        {"type": "null"},
    ]
    assert props["score"]["description"] == "from Field"
    person = p["$defs"]["Person"]
    assert person["properties"]["address"] == {"$ref": "#/$defs/Address"}
    assert "title" not in props["query"]


def test_injected_agent_and_call_are_hidden_and_passed() -> None:
    seen: dict[str, Any] = {}

    @tool
    async def whoami(text: str, agent: Agent, call: ToolCall) -> str:
        seen["agent"], seen["call"] = agent, call
        return text

    assert list(params_of(whoami)["properties"]) == ["text"]
    assert whoami.injected == {"agent": "agent", "call": "call"}


def test_validation_errors_name_field_expectation_and_value() -> None:
    @tool
    def f(count: int, color: Color) -> None:
        pass

    with pytest.raises(ToolArgumentsError) as info:
        f.validate({"count": "many", "color": "green", "extra": 1})
    message = str(info.value)
    assert "count:" in message and '"many"' in message
    assert "color:" in message and "green" in message
    assert "extra: unexpected field" in message
    with pytest.raises(ToolArgumentsError, match="count: field required"):
        f.validate({"color": "red"})
    assert f.validate({"count": "3", "color": "blue"}) == {"count": 3, "color": Color.BLUE}


def test_nested_model_arguments_are_built() -> None:
    @tool
    def register(person: Person) -> str:
        return person.address.street

    args = register.validate({"person": {"name": "A", "address": {"street": "Main"}}})
    assert isinstance(args["person"], Person)


def test_var_args_are_rejected() -> None:
    def bad(*items: int) -> None:
        pass

    with pytest.raises(ToolDefinitionError, match=r"\*items"):
        Tool.from_function(bad)


def test_duplicate_names_are_rejected() -> None:
    def ping() -> str:
        return "pong"

    registry = ToolRegistry([ping])
    with pytest.raises(ToolDefinitionError, match="duplicate tool name 'ping'"):
        registry.add(Tool.from_function(ping))


@pytest.mark.anyio
async def test_sync_tool_runs_in_a_worker_thread() -> None:
    import threading

    main = threading.get_ident()

    @tool
    def where() -> int:
        return threading.get_ident()

    assert await where.run({}) != main


def test_decorated_tool_is_still_callable() -> None:
    @tool(name="plus", description="Add.")
    def add(a: int, b: int) -> int:
        return a + b

    assert add(2, 3) == 5
    assert add.name == "plus" and add.description == "Add."


def test_optional_injected_agent_is_hidden_too() -> None:
    @tool
    def f(text: str, agent: Agent | None = None) -> str:
        return text

    assert list(params_of(f)["properties"]) == ["text"]
    assert f.injected == {"agent": "agent"}
