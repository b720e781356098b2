"""The descriptor of this vendor folder: every part of it, as one
[`Vendor`][good_agent.providers.vendor.Vendor], ``VENDOR``. The folder's face gives it
on first use, so its profile rules can be read without loading its codecs."""

from typing import Any

from good_agent.providers.openai import chat_codec, profile, responses_codec
from good_agent.providers.openai.chat_stream import OpenAIChatDecoder
from good_agent.providers.openai.embeddings import OpenAIEmbedder
from good_agent.providers.openai.http_transport import (
    OpenAIHttpTransport,
    OpenAIResponsesHttpTransport,
)
from good_agent.providers.openai.responses_stream import OpenAIResponsesDecoder
from good_agent.providers.openai.sdk_transport import OpenAIClientTransport
from good_agent.providers.vendor import Codec, Vendor


def responses_client_transport(model: str, **connection: Any) -> OpenAIClientTransport:
    """The Responses API on a caller's ``openai.AsyncOpenAI`` client."""
    return OpenAIClientTransport(model, api="responses", **connection)


VENDOR = Vendor(
    name="openai",
    providers=profile.PROVIDERS,
    codecs=(
        Codec.from_module("openai_chat", chat_codec, stream_decoder=OpenAIChatDecoder),
        Codec.from_module(
            "openai_responses",
            responses_codec,
            history_key="input",
            stream_decoder=OpenAIResponsesDecoder,
        ),
    ),
    http_transports={
        "openai": OpenAIHttpTransport,
        "openai-responses": OpenAIResponsesHttpTransport,
    },
    sdk_transports={
        "openai": OpenAIClientTransport,
        "openai-responses": responses_client_transport,
    },
    # The Responses API's account has the same /embeddings.
    embedders={"openai": OpenAIEmbedder, "openai-responses": OpenAIEmbedder},
    rules=profile.RULES,
)
"""OpenAI, as the registry holds it."""

__all__ = ["VENDOR"]
