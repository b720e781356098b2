"""Total time to decode one streamed tool call split into N chunks.

Linear decoding keeps the time per chunk flat from 1k to 100k chunks. Run:
``python benchmarks/stream_assembly.py``.
"""

from __future__ import annotations

import json
import time
from typing import Any

from good_agent.providers.anthropic.stream import AnthropicDecoder
from good_agent.providers.openai.chat_stream import OpenAIChatDecoder
from good_agent.providers.openai.responses_stream import OpenAIResponsesDecoder


def chunks_for(count: int) -> list[str]:
    text = json.dumps({"items": ["x" * 7] * count})
    size = max(1, len(text) // count)
    return [text[i : i + size] for i in range(0, len(text), size)]


def openai_events(pieces: list[str]) -> list[dict[str, Any]]:
    first = {"index": 0, "id": "call_1", "function": {"name": "f", "arguments": ""}}
    events = [{"choices": [{"delta": {"tool_calls": [first]}}]}]
    events += [
        {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": p}}]}}]}
        for p in pieces
    ]
    events.append({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]})
    return events


def responses_events(pieces: list[str]) -> list[dict[str, Any]]:
    item = {"type": "function_call", "id": "fc", "call_id": "c", "name": "f"}
    events: list[dict[str, Any]] = [{"type": "response.output_item.added", "item": item}]
    events += [
        {"type": "response.function_call_arguments.delta", "item_id": "fc", "delta": p}
        for p in pieces
    ]
    events.append({"type": "response.completed", "response": {"status": "completed"}})
    return events


def anthropic_events(pieces: list[str]) -> list[dict[str, Any]]:
    block = {"type": "tool_use", "id": "t", "name": "f", "input": {}}
    events: list[dict[str, Any]] = [
        {"type": "content_block_start", "index": 0, "content_block": block}
    ]
    events += [
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": p},
        }
        for p in pieces
    ]
    events.append({"type": "message_stop"})
    return events


def measure(factory: Any, events: list[dict[str, Any]]) -> float:
    start = time.perf_counter()
    decoder = factory()
    for event in events:
        decoder.feed(event)
    (call,) = decoder.finish().tool_calls
    assert call.arguments is not None
    return time.perf_counter() - start


def main() -> None:
    cases = [
        ("openai_chat", OpenAIChatDecoder, openai_events),
        ("responses", OpenAIResponsesDecoder, responses_events),
        ("anthropic", AnthropicDecoder, anthropic_events),
    ]
    print(f"{'decoder':<12} {'chunks':>8} {'total ms':>10} {'us/chunk':>9}")
    for name, factory, build in cases:
        for count in (1_000, 100_000):
            events = build(chunks_for(count))
            best = min(measure(factory, events) for _ in range(3))
            print(
                f"{name:<12} {len(events):>8} {best * 1e3:>10.2f} {best / len(events) * 1e6:>9.3f}"
            )


if __name__ == "__main__":
    main()
