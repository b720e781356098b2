"""The descriptor of this vendor folder: every part of it, as one
[`Vendor`][good_agent.providers.vendor.Vendor], ``VENDOR``. The folder's face gives it
on first use, so its profile rules can be read without loading its codecs."""

from good_agent.providers.ollama import codec, profile
from good_agent.providers.ollama.embeddings import OllamaEmbedder
from good_agent.providers.ollama.http_transport import OllamaHttpTransport
from good_agent.providers.ollama.stream import OllamaDecoder
from good_agent.providers.vendor import Codec, Vendor

VENDOR = Vendor(
    name="ollama",
    providers=profile.PROVIDERS,
    codecs=(Codec.from_module("ollama", codec, stream_decoder=OllamaDecoder),),
    http_transports={"ollama": OllamaHttpTransport},
    embedders={"ollama": OllamaEmbedder},
    rules=profile.RULES,
)
"""Ollama, as the registry holds it (no SDK transport: its HTTP API is the one way)."""

__all__ = ["VENDOR"]
