"""What a model response cost, from the ``genai-prices`` table (the ``cost`` extra).

[`price`][good_agent.models.prices.price] looks a model up in
[genai-prices](https://github.com/pydantic/genai-prices), the maintained price table
pydantic-ai uses, under the provider that served it, and prices the response's tokens:
input tokens not read from or written to the prompt cache at the input price, cache
reads and writes at their own prices, output tokens at the output price. Anything the
table cannot answer is ``None``, never a guess: a model or provider it does not list, a
local model (Ollama), a response without a model name, or ``genai-prices`` not
installed (``pip install "good-agent[cost]"``).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from good_agent.models.base import LanguageModel
from good_agent.models.traits import model_provider
from good_agent.types.messages import ModelResponse
from good_agent.types.usage import Usage

__all__ = ["UNPRICED_PROVIDERS", "price", "response_price"]

UNPRICED_PROVIDERS = frozenset({"ollama", "test", "scripted", "function"})
"""Providers whose models have no price: local models and the testing models."""

_PROVIDER_IDS = {"gemini": "google", "openai-responses": "openai"}
"""Our provider names that genai-prices lists under another id."""


def price(usage: Usage, model: str | None, provider: str | None = None) -> Decimal | None:
    """The price in US dollars of one response of ``model`` served by ``provider``
    with ``usage``, or ``None`` when the table has no price for it.

    ``provider`` is the provider's name (``openai``, ``anthropic``, ``gemini``, an
    OpenAI-compatible provider such as ``groq``); without it the model is priced only
    when the table names its provider unambiguously.
    """
    if not model or (provider or "").lower() in UNPRICED_PROVIDERS:
        return None
    try:
        import genai_prices
    except ImportError:
        return None
    name = model.split(":", 1)[1] if ":" in model and provider is None else model
    provider_id = _PROVIDER_IDS.get(provider or "", provider) if provider else None
    counts = genai_prices.Usage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_read_tokens=usage.cache_read_tokens,
        cache_write_tokens=usage.cache_write_tokens,
        cache_write_1h_tokens=usage.cache_write_1h_tokens or None,
    )
    try:
        found = genai_prices.calc_price(counts, name, provider_id=provider_id)
    except (LookupError, ValueError):
        return None
    return Decimal(found.total_price)


def response_price(model: Any, response: ModelResponse) -> Decimal | None:
    """The price of ``response`` from ``model`` (a language model object): priced
    under the model id the provider reported, else the model's own name, and the
    model's provider."""
    name = response.model or (model.model_name if isinstance(model, LanguageModel) else None)
    return price(response.usage, name, model_provider(model))
