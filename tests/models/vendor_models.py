"""One model per vendor, pointed at a fake upstream (see ``conftest.vendors``)."""

from __future__ import annotations

from typing import Any

from bridge_fakes import UPSTREAM_KEY, Fake

from good_agent.models import AnthropicModel, GeminiModel, OllamaModel, OpenAIChatModel
from good_agent.models.provider_model import ProviderModel

Vendors = dict[str, tuple[Fake, str]]
"""Fake upstreams by vendor name: ``(fake, base URL)``."""


def vendor_model(kind: str, url: str, **options: Any) -> ProviderModel:
    """A vision-capable model of ``kind`` (openai, anthropic, gemini, ollama) at ``url``
    (``options``: more arguments of its class, a ``client`` say)."""
    if kind == "openai":
        return OpenAIChatModel("gpt-4.1", base_url=f"{url}/v1", api_key=UPSTREAM_KEY, **options)
    if kind == "anthropic":
        return AnthropicModel("claude-test", base_url=url, api_key=UPSTREAM_KEY, **options)
    if kind == "gemini":
        return GeminiModel("gemini-2.5-flash", base_url=url, api_key=UPSTREAM_KEY, **options)
    return OllamaModel("llava", base_url=url, api_key=UPSTREAM_KEY, mode="native", **options)
