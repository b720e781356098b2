"""LiteLLM's side: its own request transformations for Anthropic and Gemini.

``LITELLM_LOCAL_MODEL_COST_MAP`` is set before the import: without it LiteLLM
fetches its model price list over the network at import time, retrying with
sleeps when there is no network, which would time a network timeout.
"""

from __future__ import annotations

import os
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from harness import Case, NotApplicable, main


def schema() -> list[Case]:
    import shared
    from litellm.utils import function_to_dict

    def run() -> list[dict[str, Any]]:
        return [function_to_dict(f) for f in shared.SCHEMA_FUNCTIONS]

    try:
        run()
    except Exception as exc:
        raise NotApplicable(
            "litellm.utils.function_to_dict reads a parameter's type from "
            "`annotation.__name__` and its documentation from a numpy-style docstring "
            "(through numpydoc, which litellm does not install); nested pydantic models, "
            "`X | None` and enums are not turned into JSON schema. On these functions it "
            f"raised {type(exc).__name__}: {exc}"
        ) from exc

    def fingerprint(definitions: list[dict[str, Any]]) -> Any:
        return [(d["name"], shared.schema_shape(d["parameters"])) for d in definitions]

    return [Case("schema", fingerprint, run=run, per=len(shared.SCHEMA_FUNCTIONS), unit="tool")]


def translation() -> list[Case]:
    import copy

    import shared
    from litellm.llms.anthropic.chat.transformation import AnthropicConfig
    from litellm.llms.gemini.chat.transformation import GoogleAIStudioGeminiConfig
    from litellm.llms.vertex_ai.gemini.transformation import _transform_request_body

    messages = copy.deepcopy(shared.TRANSLATION_MESSAGES)
    tools = copy.deepcopy(shared.TRANSLATION_TOOLS)
    anthropic = AnthropicConfig()
    gemini = GoogleAIStudioGeminiConfig()

    def to_anthropic() -> dict[str, Any]:
        model = "claude-sonnet-4-5"
        params = anthropic.map_openai_params({"tools": tools}, {}, model, False)
        return anthropic.transform_request(model, list(messages), params, {}, {})

    def to_gemini() -> dict[str, Any]:
        model = "gemini-2.5-flash"
        params = gemini.map_openai_params({"tools": tools}, {}, model, False)
        return dict(
            _transform_request_body(
                messages=list(messages),
                model=model,
                custom_llm_provider="gemini",
                litellm_params={},
                cached_content=None,
                optional_params=params,
            )
        )

    note = "map_openai_params + transform_request (the request body, no HTTP)"
    return [
        Case("anthropic", shared.anthropic_shape, run=to_anthropic, unit="request", note=note),
        Case("gemini", shared.gemini_shape, run=to_gemini, unit="request", note=note),
    ]


if __name__ == "__main__":
    main("litellm", "litellm", "litellm", {"schema": schema, "translation": translation})
