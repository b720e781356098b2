"""The codecs by name: a view of the vendor registry
([`good_agent.providers.registry`][good_agent.providers.registry]), kept for imports
written against it."""

from good_agent.providers.registry import codec_names, get_codec, register_codec
from good_agent.providers.vendor import Codec

__all__ = ["Codec", "codec_names", "get_codec", "register_codec"]
