"""instructor's side: its JSON extraction helper on the same model replies.

instructor extracts one JSON span from a reply and leaves decoding to the caller
(it then validates the JSON into the response model); here the span is decoded
with ``json.loads`` and read as ``{"name", "arguments"}``, which is the work
``parse_tool_calls`` does on our side.
"""

from __future__ import annotations

from typing import Any

from harness import Case, main


def text() -> list[Case]:
    import json

    import shared
    from instructor.v2.core.json import extract_json_from_codeblock

    def run() -> list[Any]:
        return [json.loads(extract_json_from_codeblock(sample)) for sample in shared.TEXT_SAMPLES]

    def fingerprint(decoded: list[Any]) -> Any:
        return [[(d["name"], d["arguments"])] for d in decoded]

    note = "extract_json_from_codeblock + json.loads"
    return [
        Case("text", fingerprint, run=run, per=len(shared.TEXT_SAMPLES), unit="reply", note=note)
    ]


if __name__ == "__main__":
    main("instructor", "instructor", "instructor", {"text": text})
