"""pydantic-ai's side: tool definitions from functions, and ``FunctionModel`` runs."""

from __future__ import annotations

from typing import Any

from harness import Case, main


def schema() -> list[Case]:
    import shared
    from pydantic_ai import Tool

    def run() -> list[Any]:
        return [Tool(f).tool_def for f in shared.SCHEMA_FUNCTIONS]

    def fingerprint(definitions: list[Any]) -> Any:
        return [(d.name, shared.schema_shape(d.parameters_json_schema)) for d in definitions]

    return [Case("schema", fingerprint, run=run, per=len(shared.SCHEMA_FUNCTIONS), unit="tool")]


def round_trip() -> list[Case]:
    import shared
    from pydantic_ai import Agent, Tool
    from pydantic_ai.messages import (
        ModelMessage,
        ModelRequest,
        ModelResponse,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
    )
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.usage import UsageLimits

    tools = [Tool(shared.weather), Tool(shared.stock)]
    counter = iter(range(10**9))

    def case(name: str, turns: list[Any]) -> Case:
        calls_in_script = sum(len(turn) for turn in turns if isinstance(turn, list))

        def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            turn = turns[sum(isinstance(m, ModelResponse) for m in messages)]
            if isinstance(turn, str):
                return ModelResponse(parts=[TextPart(turn)])
            return ModelResponse(
                parts=[
                    ToolCallPart(name, dict(args), tool_call_id=f"call_{next(counter)}")
                    for name, args in turn
                ]
            )

        # A pydantic-ai Agent keeps no conversation state, so one agent serves every
        # run (its documented use); good_agent's Agent is the conversation and is built
        # per run.
        agent = Agent(FunctionModel(reply), tools=tools)

        # Its default limit is 50 requests per run; the long conversations need more.
        limits = UsageLimits(request_limit=len(turns) + 1)

        async def arun() -> Any:
            return await agent.run(shared.ROUND_TRIP_PROMPT, usage_limits=limits)

        note = "one Agent reused across runs"
        return Case(name, fingerprint, arun=arun, per=calls_in_script, unit="tool call", note=note)

    def fingerprint(result: Any) -> Any:
        calls, results = [], []
        messages = result.all_messages()
        for message in messages:
            for part in message.parts:
                if isinstance(part, ToolCallPart):
                    calls.append((part.tool_name, part.args_as_dict()))
                elif isinstance(part, ToolReturnPart) and isinstance(message, ModelRequest):
                    results.append(str(part.content))
        return {
            "calls": sorted(calls, key=repr),
            "results": sorted(results),
            "model_turns": sum(isinstance(m, ModelResponse) for m in messages),
            "answer": result.output,
        }

    return [case("round_trip", shared.ROUND_TRIP_SCRIPT)] + [
        case(f"round_trip_{n}", shared.long_round_trip(n)) for n in shared.ROUND_TRIP_LENGTHS
    ]


if __name__ == "__main__":
    main(
        "pydantic_ai",
        "pydantic_ai",
        "pydantic-ai-slim",
        {"schema": schema, "round_trip": round_trip},
    )
