"""The descriptor of this vendor folder: every part of it, as one
[`Vendor`][good_agent.providers.vendor.Vendor], ``VENDOR``. The folder's face gives it
on first use, so its profile rules can be read without loading its codecs."""

from good_agent.providers.anthropic import codec, profile
from good_agent.providers.anthropic.http_transport import AnthropicHttpTransport
from good_agent.providers.anthropic.sdk_transport import AnthropicTransport
from good_agent.providers.anthropic.stream import AnthropicDecoder
from good_agent.providers.vendor import Codec, Vendor

VENDOR = Vendor(
    name="anthropic",
    providers=profile.PROVIDERS,
    codecs=(
        Codec.from_module(
            "anthropic_messages",
            codec,
            supports_response_format=False,
            stream_decoder=AnthropicDecoder,
        ),
    ),
    http_transports={"anthropic": AnthropicHttpTransport},
    sdk_transports={"anthropic": AnthropicTransport},
    rules=profile.RULES,
    last_rules=profile.LAST_RULES,
    aliases=profile.ALIASES,
)
"""Anthropic, as the registry holds it (no embeddings API)."""

__all__ = ["VENDOR"]
