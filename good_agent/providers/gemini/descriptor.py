"""The descriptor of this vendor folder: every part of it, as one
[`Vendor`][good_agent.providers.vendor.Vendor], ``VENDOR``. The folder's face gives it
on first use, so its profile rules can be read without loading its codecs."""

from good_agent.providers.gemini import codec, profile
from good_agent.providers.gemini.embeddings import GeminiEmbedder
from good_agent.providers.gemini.http_transport import GeminiHttpTransport
from good_agent.providers.gemini.sdk_transport import GeminiTransport
from good_agent.providers.gemini.stream import GeminiDecoder
from good_agent.providers.vendor import Codec, Vendor

VENDOR = Vendor(
    name="gemini",
    providers=profile.PROVIDERS,
    codecs=(
        Codec.from_module("gemini", codec, history_key="contents", stream_decoder=GeminiDecoder),
    ),
    http_transports={"gemini": GeminiHttpTransport},
    sdk_transports={"gemini": GeminiTransport},
    embedders={"gemini": GeminiEmbedder},
    rules=profile.RULES,
    last_rules=profile.LAST_RULES,
    aliases=profile.ALIASES,
)
"""Gemini, as the registry holds it."""

__all__ = ["VENDOR"]
