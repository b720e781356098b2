"""Output functions: the run ends by calling a function with the model's answer.

A function as ``output_type`` is the last step of a run. Its parameters are the
output schema the model fills in (the ``RunContext`` parameter is injected, not
shown to the model); it is called with the validated arguments, and what it
returns is ``result.output``. Raising ``ModelRetry`` inside sends the model back
with the message, counted against ``output_retries``.

Here the model books a meeting room: the function checks the room's calendar (the
run's deps) and books it, or asks the model for another slot. A second agent shows
a union with ``str``: the model may answer in plain text or with a structured value.

Runs offline with a scripted model; against a real model replace the
``ScriptedModel(...)`` with ``"gpt-4.1-mini"``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel

from good_agent import Agent, ModelRetry, RunContext
from good_agent.testing import ScriptedModel


@dataclass
class Calendar:
    """The application's calendar: deps of the run, never sent to the model."""

    taken: set[tuple[str, int]] = field(default_factory=set)


class Booking(BaseModel):
    room: str
    hour: int


def book_room(ctx: RunContext[Calendar], room: str, hour: int) -> Booking:
    """Book a meeting room.

    Args:
        room: The room's name.
        hour: The hour of the day, 8 to 17.
    """
    if not 8 <= hour <= 17:
        raise ModelRetry("rooms are open from 8 to 17: pick an hour in that range")
    if (room, hour) in ctx.deps.taken:
        raise ModelRetry(f"{room} is taken at {hour}:00: pick another hour")
    ctx.deps.taken.add((room, hour))
    return Booking(room=room, hour=hour)


def booking_model() -> ScriptedModel:
    """What a model might answer: a taken slot first, then a free one."""
    return ScriptedModel(
        [
            ScriptedModel.tool_call("final_result", {"room": "Fjord", "hour": 10}),
            ScriptedModel.tool_call("final_result", {"room": "Fjord", "hour": 11}),
        ]
    )


class Forecast(BaseModel):
    city: str
    celsius: float


def main() -> None:
    calendar = Calendar(taken={("Fjord", 10)})
    agent = Agent(
        "You book meeting rooms.",
        model=booking_model(),
        output_type=book_room,
        deps_type=Calendar,
    )
    result = agent.run_sync("Book Fjord at 10 tomorrow.", deps=calendar)
    booking: Booking = result.output  # typed: book_room's return type
    retry = result.new_messages[2]
    print("the model was told:", retry.content)
    print("booked:", booking)
    assert booking == Booking(room="Fjord", hour=11)
    assert calendar.taken == {("Fjord", 10), ("Fjord", 11)}

    text_or_forecast = Agent(
        model=ScriptedModel(["I have no weather data for the Moon."]),
        output_type=str | Forecast,
    )
    answer = text_or_forecast.run_sync("Weather on the Moon?").output
    print("text or structured:", repr(answer))
    assert answer == "I have no weather data for the Moon."


if __name__ == "__main__":
    main()
