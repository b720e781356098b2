"""The shared corpus of text tool-call cases (one-shot and streaming tests use it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Call = tuple[str, dict[str, Any] | None]


@dataclass(frozen=True)
class Case:
    id: str
    text: str
    calls: list[Call] = field(default_factory=list)
    content: str = ""
    reasoning: str | None = None
    fmt: str = "auto"
    tools: tuple[str, ...] | None = None


H = "<tool_call>{}</tool_call>"


def _nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth - 1):
        value = [value]
    return value


CASES: list[Case] = [
    # --- no call -------------------------------------------------------------
    Case("plain", "Hello there.", content="Hello there."),
    Case("empty", "", content=""),
    Case("whitespace-only", "  \n\t ", content=""),
    Case("unicode-plain", "Grüße 🌍 — ok", content="Grüße 🌍 — ok"),
    Case("prose-braces", "use {curly} braces", content="use {curly} braces"),
    Case("prose-json-not-call", 'config is {"a": 1} ok', content='config is {"a": 1} ok'),
    Case(
        "prose-markdown-link",
        "see [docs](http://x) and [1]",
        content="see [docs](http://x) and [1]",
    ),
    Case("prose-empty-object", "an empty {} and []", content="an empty {} and []"),
    Case("prose-name-only", '{"name": "Bob"}', content='{"name": "Bob"}'),
    Case(
        "prose-extra-keys",
        '{"name": "f", "arguments": {}, "colour": "red"}',
        content='{"name": "f", "arguments": {}, "colour": "red"}',
    ),
    Case("prose-list-of-numbers", "[1, 2, 3]", content="[1, 2, 3]"),
    Case("prose-pythonic-positional", "[f(1)]", content="[f(1)]"),
    Case("prose-pythonic-not-list", "call f(a=1) now", content="call f(a=1) now"),
    Case("prose-angle", "a < b and c > d", content="a < b and c > d"),
    Case("prose-tool-calls-word", "the [TOOL_CALLS] token", content="the [TOOL_CALLS] token"),
    Case("prose-functools", "import functools", content="import functools"),
    # --- bare JSON -----------------------------------------------------------
    Case(
        "json-single",
        '{"name": "get_weather", "arguments": {"city": "Paris"}}',
        [("get_weather", {"city": "Paris"})],
    ),
    Case("json-parameters", '{"name": "f", "parameters": {"x": 1}}', [("f", {"x": 1})]),
    Case(
        "json-args-before-name", '{"arguments": {"x": [1, 2]}, "name": "f"}', [("f", {"x": [1, 2]})]
    ),
    Case("json-empty-args", '{"name": "ping", "arguments": {}}', [("ping", {})]),
    Case("json-null-args", '{"name": "ping", "arguments": null}', [("ping", {})]),
    Case("json-string-args", '{"name": "f", "arguments": "{\\"a\\": 1}"}', [("f", {"a": 1})]),
    Case("json-empty-string-args", '{"name": "f", "arguments": ""}', [("f", {})]),
    Case(
        "json-array",
        '[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"n": 2}}]',
        [("a", {}), ("b", {"n": 2})],
    ),
    Case(
        "json-surrounding",
        'Sure.\n{"name": "f", "arguments": {"q": "x"}}\nDone.',
        [("f", {"q": "x"})],
        "Sure.\n\nDone.",
    ),
    Case(
        "json-two-objects",
        '{"name": "a", "arguments": {}} {"name": "b", "arguments": {}}',
        [("a", {}), ("b", {})],
        "",
    ),
    Case(
        "json-escaped-quotes",
        '{"name": "say", "arguments": {"text": "he said \\"hi\\""}}',
        [("say", {"text": 'he said "hi"'})],
    ),
    Case(
        "json-braces-in-string",
        '{"name": "f", "arguments": {"code": "if (x) { y[0] = \'}\'; }"}}',
        [("f", {"code": "if (x) { y[0] = '}'; }"})],
    ),
    Case(
        "json-unicode",
        '{"name": "translate", "arguments": {"text": "日本語 \\u00e9 🌍"}}',
        [("translate", {"text": "日本語 é 🌍"})],
    ),
    Case(
        "json-nested",
        '{"name": "f", "arguments": {"a": {"b": {"c": [1, {"d": null}]}}}}',
        [("f", {"a": {"b": {"c": [1, {"d": None}]}}})],
    ),
    Case("json-trailing-comma", '{"name": "f", "arguments": {"a": 1,},}', [("f", {"a": 1})]),
    Case(
        "json-python-literals",
        '{"name": "f", "arguments": {"a": True, "b": None}}',
        [("f", {"a": True, "b": None})],
    ),
    Case(
        "json-dict-repr",
        "{'name': 'f', 'arguments': {'a': 1, 'b': 'x'}}",
        [("f", {"a": 1, "b": "x"})],
    ),
    Case(
        "json-dict-repr-text",
        "Calling: {'name': 'lookup', 'arguments': {'id': -3}} now",
        [("lookup", {"id": -3})],
        "Calling:  now",
    ),
    Case("json-args-list-error", '{"name": "f", "arguments": [1, 2]}', [("f", None)]),
    Case("json-args-bad-string", '{"name": "f", "arguments": "not json"}', [("f", None)]),
    Case(
        "json-unclosed",
        'x {"name": "f", "arguments": {"a": 1}',
        content='x {"name": "f", "arguments": {"a": 1}',
    ),
    Case(
        "json-openai-envelope",
        '{"tool_calls": [{"id": "c1", "type": "function", "function": '
        '{"name": "f", "arguments": "{\\"a\\": 1}"}}]}',
        [("f", {"a": 1})],
    ),
    Case(
        "json-openai-envelope-content",
        '{"content": "Checking", "tool_calls": [{"type": "function", "function": '
        '{"name": "f", "arguments": {}}}, {"type": "function", "function": '
        '{"name": "g", "arguments": "{}"}}]}',
        [("f", {}), ("g", {})],
        "Checking",
    ),
    Case(
        "json-openai-single",
        '{"type": "function", "function": {"name": "f", "arguments": "{}"}}',
        [("f", {})],
    ),
    Case(
        "json-seed",
        '{"tool": "search", "arguments": {"q": "cats"}, "scratchpad": "need facts"}',
        [("search", {"q": "cats"})],
        reasoning="need facts",
    ),
    Case(
        "json-answer",
        '{"answer": "It is 42.", "scratchpad": "computed"}',
        content="It is 42.",
        reasoning="computed",
    ),
    Case("json-answer-only", '{"answer": "Yes"}', content="Yes"),
    Case("json-answer-not-string", '{"answer": 42}', content='{"answer": 42}'),
    Case("json-whitespace-after-brace", '{  \n "name": "f", "arguments": {}}', [("f", {})]),
    # --- fenced --------------------------------------------------------------
    Case(
        "fenced",
        'Here:\n```json\n{"name": "f", "arguments": {"a": 1}}\n```\nok',
        [("f", {"a": 1})],
        "Here:\n\nok",
    ),
    Case(
        "fenced-array",
        '```json\n[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}]\n```',
        [("a", {}), ("b", {})],
    ),
    Case("fenced-not-call", '```json\n{"a": 1}\n```', content='```json\n{"a": 1}\n```'),
    Case("fenced-invalid", "```json\n{oops\n```", content="```json\n{oops\n```"),
    Case(
        "fenced-only-format",
        '```json\n{"name": "f", "arguments": {}}\n``` {"name": "g", "arguments": {}}',
        [("f", {})],
        '{"name": "g", "arguments": {}}',
        fmt="fenced",
    ),
    # --- Hermes / Qwen -------------------------------------------------------
    Case("hermes", H.format('{"name": "f", "arguments": {"a": 1}}'), [("f", {"a": 1})]),
    Case(
        "hermes-parallel",
        H.format('{"name": "a", "arguments": {}}')
        + "\n"
        + H.format('{"name": "b", "arguments": {"x": "y"}}'),
        [("a", {}), ("b", {"x": "y"})],
    ),
    Case(
        "hermes-surrounding",
        "Let me check.\n" + H.format('{"name": "f", "arguments": {}}') + "\nThanks",
        [("f", {})],
        "Let me check.\n\nThanks",
    ),
    Case(
        "hermes-newlines",
        '<tool_call>\n{"name": "f", "arguments": {"a": "b"}}\n</tool_call>',
        [("f", {"a": "b"})],
    ),
    Case(
        "hermes-unclosed-last",
        H.format('{"name": "a", "arguments": {}}')
        + '<tool_call>{"name": "b", "arguments": {"n": 1}}',
        [("a", {}), ("b", {"n": 1})],
    ),
    Case(
        "hermes-unclosed-truncated",
        '<tool_call>{"name": "f", "arguments": {"a": 1',
        [("f", {"a": 1})],
    ),
    Case("hermes-no-arguments", H.format('{"name": "now"}'), [("now", {})]),
    Case(
        "hermes-string-args",
        H.format('{"name": "f", "arguments": "{\\"k\\": [1]}"}'),
        [("f", {"k": [1]})],
    ),
    Case(
        "hermes-tag-in-string",
        H.format('{"name": "echo", "arguments": {"s": "<tool_call>"}}'),
        [("echo", {"s": "<tool_call>"})],
    ),
    Case(
        "hermes-broken-named",
        '<tool_call>{"name": "f", "arguments": {"a": ]]}</tool_call>',
        [("f", None)],
    ),
    Case(
        "hermes-broken-unnamed",
        "<tool_call>not json at all</tool_call>",
        content="<tool_call>not json at all</tool_call>",
    ),
    Case("hermes-empty", "<tool_call></tool_call>", content="<tool_call></tool_call>"),
    Case(
        "hermes-think",
        "<think>I should call f.</think>\n" + H.format('{"name": "f", "arguments": {}}'),
        [("f", {})],
        reasoning="I should call f.",
    ),
    Case(
        "hermes-unicode",
        H.format('{"name": "f", "arguments": {"city": "São Paulo"}}'),
        [("f", {"city": "São Paulo"})],
    ),
    Case(
        "hermes-only-format",
        H.format('{"name": "f", "arguments": {}}') + ' {"name": "g", "arguments": {}}',
        [("f", {})],
        '{"name": "g", "arguments": {}}',
        fmt="hermes",
    ),
    Case(
        "hermes-closing-tag-in-string",
        '<tool_call>{"name": "a", "arguments": {"s": "</tool_call>"}}</tool_call> after',
        [("a", {"s": "</tool_call>"})],
        "after",
    ),
    Case(
        "hermes-stray-brace-is-error",
        '<tool_call>\n{"name": "f", "arguments": {"a": 1}}}\n</tool_call>',
        [("f", None)],
    ),
    Case(
        "hermes-two-objects-in-one-tag",
        '<tool_call>{"name": "a", "arguments": {}}\n{"name": "b", "arguments": {}}</tool_call>',
        [("a", None)],
    ),
    Case(
        "hermes-far-body",
        "<tool_call>" + " " * 40 + '{"name": "f", "arguments": {}}</tool_call>',
        [("f", {})],
    ),
    # --- tools filter --------------------------------------------------------
    Case("tools-known", H.format('{"name": "f", "arguments": {}}'), [("f", {})], tools=("f",)),
    Case(
        "tools-unknown-stays-content",
        "a " + H.format('{"name": "zz", "arguments": {}}'),
        content='a <tool_call>{"name": "zz", "arguments": {}}</tool_call>',
        tools=("f",),
    ),
    Case(
        "tools-mixed",
        H.format('{"name": "f", "arguments": {}}') + H.format('{"name": "zz", "arguments": {}}'),
        [("f", {})],
        '<tool_call>{"name": "zz", "arguments": {}}</tool_call>',
        tools=("f",),
    ),
    # --- Mistral -------------------------------------------------------------
    Case("mistral-array", '[TOOL_CALLS][{"name": "f", "arguments": {"a": 1}}]', [("f", {"a": 1})]),
    Case(
        "mistral-array-parallel",
        '[TOOL_CALLS] [{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"z": false}}]',
        [("a", {}), ("b", {"z": False})],
    ),
    Case(
        "mistral-name-form",
        '[TOOL_CALLS]get_weather{"city": "Paris"}',
        [("get_weather", {"city": "Paris"})],
    ),
    Case(
        "mistral-args-form",
        '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}',
        [("get_weather", {"city": "Paris"})],
    ),
    Case(
        "mistral-name-parallel",
        '[TOOL_CALLS]a{}[TOOL_CALLS]b{"x": 1}',
        [("a", {}), ("b", {"x": 1})],
    ),
    Case(
        "mistral-surrounding",
        'Checking. [TOOL_CALLS][{"name": "f", "arguments": {}}] done',
        [("f", {})],
        "Checking.  done",
    ),
    Case("mistral-object", '[TOOL_CALLS]{"name": "f", "arguments": {}}', [("f", {})]),
    Case("mistral-name-broken", '[TOOL_CALLS]f{"a": 1 oops}', [("f", None)]),
    Case("mistral-name-repaired", "[TOOL_CALLS]f{'a': [}", [("f", {"a": []})]),
    Case("mistral-garbage", "[TOOL_CALLS] hello", content="[TOOL_CALLS] hello"),
    Case("mistral-repeated-marker", "[TOOL_CALLS][TOOL_CALLS]", content="[TOOL_CALLS][TOOL_CALLS]"),
    # --- Llama 3 -------------------------------------------------------------
    Case("llama-tag", '<|python_tag|>{"name": "f", "parameters": {"x": 1}}', [("f", {"x": 1})]),
    Case(
        "llama-semicolons",
        '<|python_tag|>{"name": "a", "parameters": {}}; {"name": "b", "parameters": {"y": "z"}}',
        [("a", {}), ("b", {"y": "z"})],
    ),
    Case("llama-trailing-semicolon", '<|python_tag|>{"name": "a", "parameters": {}};', [("a", {})]),
    Case(
        "llama-then-text",
        '<|python_tag|>{"name": "a", "parameters": {}} and then',
        [("a", {})],
        "and then",
    ),
    Case("llama-code", "<|python_tag|>print(1)", content="<|python_tag|>print(1)"),
    Case("llama-bare", '{"name": "f", "parameters": {"q": 1}}', [("f", {"q": 1})], fmt="llama3"),
    # --- pythonic ------------------------------------------------------------
    Case("pythonic-two", '[f(a=1), g(x="y")]', [("f", {"a": 1}), ("g", {"x": "y"})]),
    Case("pythonic-no-args", "[now()]", [("now", {})]),
    Case(
        "pythonic-literals",
        "[f(a=[1, 2.5, -3], b={'k': None}, c=True, d=(1, 2))]",
        [("f", {"a": [1, 2.5, -3], "b": {"k": None}, "c": True, "d": [1, 2]})],
    ),
    Case("pythonic-dotted", '[web.search(q="x")]', [("web.search", {"q": "x"})]),
    Case("pythonic-surrounding", 'Calling [f(a="]")] now', [("f", {"a": "]"})], "Calling  now"),
    Case("pythonic-expression-rejected", "[f(a=1+2)]", content="[f(a=1+2)]"),
    Case("pythonic-call-value-rejected", "[f(a=g())]", content="[f(a=g())]"),
    Case("pythonic-kwargs-rejected", "[f(**x)]", content="[f(**x)]"),
    Case("pythonic-unclosed", "[f(a=1", content="[f(a=1"),
    Case(
        "pythonic-only-format",
        '[f(a=1)] {"name": "g", "arguments": {}}',
        [("f", {"a": 1})],
        '{"name": "g", "arguments": {}}',
        fmt="pythonic",
    ),
    # --- Granite -------------------------------------------------------------
    Case("granite-token", '<|tool_call|>[{"name": "f", "arguments": {"a": 1}}]', [("f", {"a": 1})]),
    Case(
        "granite-functools",
        'functools[{"name": "f", "arguments": {}}, {"name": "g", "arguments": {}}]',
        [("f", {}), ("g", {})],
    ),
    Case("granite-text", 'ok <|tool_call|>[{"name": "f", "arguments": {}}]', [("f", {})], "ok"),
    # --- think ---------------------------------------------------------------
    Case(
        "think-only",
        "<think>just thinking</think>The answer.",
        content="The answer.",
        reasoning="just thinking",
    ),
    Case("think-unclosed", "<think>still going", reasoning="still going"),
    Case("think-two", "<think>a</think>x<think> b </think>y", content="xy", reasoning="a\nb"),
    Case(
        "think-hides-calls",
        "<think>maybe " + H.format('{"name": "f", "arguments": {}}') + "</think>no",
        content="no",
        reasoning='maybe <tool_call>{"name": "f", "arguments": {}}</tool_call>',
    ),
    Case("think-empty", "<think></think>hi", content="hi"),
    Case(
        "think-and-seed",
        '<think>one</think>{"tool": "f", "arguments": {}, "scratchpad": "two"}',
        [("f", {})],
        reasoning="one\ntwo",
    ),
    # --- mixed ---------------------------------------------------------------
    Case(
        "mixed-formats",
        H.format('{"name": "a", "arguments": {}}') + "[TOOL_CALLS]b{}" + "[c(x=1)]",
        [("a", {}), ("b", {}), ("c", {"x": 1})],
    ),
    Case(
        "deep-but-fine",
        '{"name": "f", "arguments": {"a": ' + "[" * 40 + "]" * 40 + "}}",
        [("f", {"a": _nested(40)})],
    ),
    Case(
        "too-deep-stays-content",
        "<tool_call>" + "[" * 500 + "</tool_call>",
        content="<tool_call>" + "[" * 500 + "</tool_call>",
    ),
]
