"""Test an agent with TestModel: no script, every tool called with valid arguments.

TestModel reads the tool signatures the agent offers (after adapters), calls each
tool once with arguments generated from its JSON schema, then answers; in a typed
run it answers with a valid value of the output type. Use it in a test suite to
check that the tools, their schemas and the output type fit together.

Against a real model: replace ``TestModel()`` with ``"gpt-4.1-mini"``.
"""

from __future__ import annotations

from typing import Annotated

import anyio
from pydantic import BaseModel, Field

from good_agent import Agent, tool
from good_agent.testing import TestModel


class Forecast(BaseModel):
    """A weather forecast."""

    city: str
    high_celsius: int = Field(ge=-60, le=60)
    summary: str = Field(min_length=3)


@tool
def weather(city: str, days: Annotated[int, Field(ge=1, le=7)] = 1) -> str:
    """Weather for a city.

    Args:
        city: The city name.
        days: How many days ahead.
    """
    return f"{city}: sunny for {days} day(s)"


async def main() -> None:
    model = TestModel()
    agent = Agent("You forecast the weather.", model=model, tools=[weather])
    result = await agent.run("Forecast for Lisbon?", output_type=Forecast)
    call = agent.messages[2].tool_calls[0]
    print("the model saw:", model.requests[0].tool_names)
    print("it called:", call.name, call.arguments)
    print("the tool said:", agent.messages[3].content)
    print("typed output:", result.output)
    assert isinstance(result.output, Forecast)


if __name__ == "__main__":
    anyio.run(main)
