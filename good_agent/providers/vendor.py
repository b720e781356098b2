"""The registry of wire-format codecs, looked up by name from a model profile."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from good_agent.providers.anthropic import codec as anthropic_messages
from good_agent.providers.anthropic.stream import AnthropicDecoder
from good_agent.providers.gemini import codec as gemini
from good_agent.providers.gemini.stream import GeminiDecoder
from good_agent.providers.ollama import codec as ollama
from good_agent.providers.ollama.stream import OllamaDecoder
from good_agent.providers.openai import chat_codec as openai_chat
from good_agent.providers.openai import responses_codec as openai_responses
from good_agent.providers.openai.chat_stream import OpenAIChatDecoder
from good_agent.providers.openai.responses_stream import OpenAIResponsesDecoder
from good_agent.providers.streaming import StreamDecoder, WholeReplyDecoder
from good_agent.providers.tool_names import ToolNameMap
from good_agent.providers.types import ChatRequest, JSONDict
from good_agent.types.errors import ModelCapabilityError
from good_agent.types.messages import ModelResponse


@dataclass(frozen=True, slots=True)
class Codec:
    """One wire format: how to build a request and read a reply.

    ``history_key`` is the request body key that holds the conversation
    (``messages``, ``contents`` or ``input``). ``stream_decoder`` builds the
    decoder of one streamed reply from the request's tool-name map; a codec
    without one is streamed as a whole reply (:class:`WholeReplyDecoder`).
    ``settings`` lists the model settings the codec takes (its module's
    ``KNOWN_SETTINGS``); see `good_agent.providers.settings`.
    """

    name: str
    tool_names: Callable[[ChatRequest], ToolNameMap]
    encode_request: Callable[..., JSONDict]
    decode_response: Callable[[JSONDict, ToolNameMap | None], ModelResponse]
    history_key: str = "messages"
    supports_response_format: bool = True
    stream_decoder: Callable[[ToolNameMap | None], StreamDecoder] | None = None
    settings: frozenset[str] = frozenset()

    def decoder(self, names: ToolNameMap | None) -> StreamDecoder:
        """A fresh decoder for one streamed reply."""
        if self.stream_decoder is None:
            return WholeReplyDecoder(self.decode_response, names)
        return self.stream_decoder(names)

    @classmethod
    def from_module(cls, name: str, module: ModuleType, **kw: Any) -> Codec:
        """Build a codec from a module defining the three codec functions.

        A part the wire format has no form for is refused naming the model, not the API;
        the ``extra_body`` setting's fields are merged into every body.
        """
        return cls(
            name=name,
            tool_names=module.tool_names,
            encode_request=_naming_the_model(module.encode_request),
            decode_response=module.decode_response,
            settings=frozenset(getattr(module, "KNOWN_SETTINGS", ())),
            **kw,
        )


def _naming_the_model(encode: Callable[..., JSONDict]) -> Callable[..., JSONDict]:
    """``encode`` whose [`ModelCapabilityError`][good_agent.ModelCapabilityError]s name
    the model the request is for (its first argument), and whose bodies carry the
    fields of the request's ``extra_body`` setting."""

    @functools.wraps(encode)
    def encode_request(model: str, request: ChatRequest, *args: Any, **kw: Any) -> JSONDict:
        try:
            body = encode(model, request, *args, **kw)
        except ModelCapabilityError as exc:
            if exc.api is None or exc.model != exc.api:
                raise
            raise exc.for_model(model) from None
        extra = request.settings.get("extra_body")
        if extra:
            body.update(extra)
        return body

    return encode_request


_CODECS: dict[str, Codec] = {
    "openai_chat": Codec.from_module("openai_chat", openai_chat, stream_decoder=OpenAIChatDecoder),
    "openai_responses": Codec.from_module(
        "openai_responses",
        openai_responses,
        history_key="input",
        stream_decoder=OpenAIResponsesDecoder,
    ),
    "anthropic_messages": Codec.from_module(
        "anthropic_messages",
        anthropic_messages,
        supports_response_format=False,
        stream_decoder=AnthropicDecoder,
    ),
    "gemini": Codec.from_module(
        "gemini", gemini, history_key="contents", stream_decoder=GeminiDecoder
    ),
    "ollama": Codec.from_module("ollama", ollama, stream_decoder=OllamaDecoder),
}


def get_codec(name: str) -> Codec:
    """The codec registered under ``name``; :class:`KeyError` names the known ones."""
    try:
        return _CODECS[name]
    except KeyError:
        known = ", ".join(sorted(_CODECS))
        raise KeyError(f"unknown codec '{name}'; known codecs: {known}") from None


def register_codec(codec: Codec) -> None:
    """Add or replace a codec (for user-registered providers)."""
    _CODECS[codec.name] = codec


def codec_names() -> list[str]:
    """The names of every registered codec."""
    return sorted(_CODECS)
