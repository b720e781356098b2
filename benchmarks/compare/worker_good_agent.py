"""good_agent's side of every comparison. Run by ``run.py``; see ``harness.py``."""

from __future__ import annotations

from typing import Any

from harness import Case, main


def schema() -> list[Case]:
    import shared

    from good_agent import Tool

    def run() -> list[dict[str, Any]]:
        return [Tool.from_function(f).signature for f in shared.SCHEMA_FUNCTIONS]

    def fingerprint(signatures: list[dict[str, Any]]) -> Any:
        return [
            (s["function"]["name"], shared.schema_shape(s["function"]["parameters"]))
            for s in signatures
        ]

    return [Case("schema", fingerprint, run=run, per=len(shared.SCHEMA_FUNCTIONS), unit="tool")]


def round_trip() -> list[Case]:
    import shared

    from good_agent import Agent, Tool
    from good_agent.testing import ScriptedModel

    tools = [Tool.from_function(shared.weather), Tool.from_function(shared.stock)]
    counter = iter(range(10**9))

    def case(name: str, turns: list[Any]) -> Case:
        calls_in_script = sum(len(turn) for turn in turns if isinstance(turn, list))

        def script() -> list[Any]:
            entries: list[Any] = []
            for turn in turns:
                if isinstance(turn, str):
                    entries.append(turn)
                else:
                    calls = [(n, args, f"call_{next(counter)}") for n, args in turn]
                    entries.append(ScriptedModel.tool_calls(*calls))
            return entries

        async def arun() -> Agent:
            agent = Agent(model=ScriptedModel(script()), tools=tools, max_iterations=len(turns))
            await agent.call(shared.ROUND_TRIP_PROMPT)
            return agent

        return Case(name, fingerprint, arun=arun, per=calls_in_script, unit="tool call")

    def fingerprint(agent: Agent) -> Any:
        calls, results = [], []
        for message in agent.messages:
            if message.role == "assistant":
                calls += [(c.name, c.arguments) for c in message.tool_calls]
            elif message.role == "tool":
                results.append(message.content)
        model_turns = sum(1 for m in agent.messages if m.role == "assistant")
        return {
            "calls": sorted(calls, key=repr),
            "results": sorted(results),
            "model_turns": model_turns,
            "answer": agent.messages[-1].content,
        }

    return [case("round_trip", shared.ROUND_TRIP_SCRIPT)] + [
        case(f"round_trip_{n}", shared.long_round_trip(n)) for n in shared.ROUND_TRIP_LENGTHS
    ]


def translation() -> list[Case]:
    import copy

    import shared

    from good_agent.providers import ChatRequest
    from good_agent.providers.anthropic import codec as anthropic_messages
    from good_agent.providers.gemini import codec as gemini

    messages = copy.deepcopy(shared.TRANSLATION_MESSAGES)
    tools = copy.deepcopy(shared.TRANSLATION_TOOLS)

    def to_anthropic() -> dict[str, Any]:
        request = ChatRequest(messages=list(messages), tools=tools)
        return anthropic_messages.encode_request("claude-sonnet-4-5", request)

    def to_gemini() -> dict[str, Any]:
        request = ChatRequest(messages=list(messages), tools=tools)
        return gemini.encode_request("gemini-2.5-flash", request)

    note = "encode_request (the request body, no HTTP)"
    return [
        Case("anthropic", shared.anthropic_shape, run=to_anthropic, unit="request", note=note),
        Case("gemini", shared.gemini_shape, run=to_gemini, unit="request", note=note),
    ]


def text() -> list[Case]:
    import shared

    from good_agent.providers.text import parse_tool_calls

    def run() -> list[Any]:
        return [parse_tool_calls(sample, shared.TEXT_TOOLS) for sample in shared.TEXT_SAMPLES]

    def fingerprint(parsed: list[Any]) -> Any:
        return [[(c.name, c.arguments) for c in calls] for calls, _content in parsed]

    return [Case("text", fingerprint, run=run, per=len(shared.TEXT_SAMPLES), unit="reply")]


if __name__ == "__main__":
    main(
        "good_agent",
        "good_agent",
        "good-agent",
        {"schema": schema, "round_trip": round_trip, "translation": translation, "text": text},
    )
