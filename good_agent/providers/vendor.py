"""What a vendor is: its wire formats (`Codec`), and the one `Vendor` descriptor each
``providers/<vendor>/__init__.py`` exports.

A descriptor holds everything of one vendor the rest of the package asks for: the codecs
of its APIs (each with its stream decoder), its profile rules and provider prefixes, and
by provider name its HTTP transport, the transport on a caller's SDK client and its
embedder. Registered in [`good_agent.providers.registry`][good_agent.providers.registry],
built-ins and [`register_provider`][good_agent.register_provider]'s alike.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from good_agent.http.http_transport import HttpTransport
from good_agent.http.transport import AnyTransport
from good_agent.providers.embeddings import Embedder
from good_agent.providers.profile_rules import ProfileRule, ProviderInfo
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
    without one is streamed as a whole reply (`WholeReplyDecoder`).
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


TransportFactory = Callable[..., AnyTransport]
"""Builds a transport: ``factory(model=, base_url=, api_key=)``."""


@dataclass(frozen=True)
class Vendor:
    """One vendor: everything of it the package asks for, under its provider names.

    Args:
        name: The vendor (its folder's name).
        providers: The provider prefixes it serves (``openai``, ``openai-responses``)
            and the codec and profile defaults of each.
        codecs: Its wire formats, each with its stream decoder.
        http_transports: The HTTP transport of each provider name (the class a model
            built in code and a bridge route build).
        sdk_transports: The transport on a caller's official SDK client, by provider name.
        embedders: The embedder of each provider name with an embeddings API.
        transports: Other transport factories by provider name
            (``transport(model=, base_url=, api_key=)``): what
            [`register_provider`][good_agent.register_provider] registers.
        rules: Profile rules for its model names, tried before the open-model rules.
        last_rules: Profile rules tried after every other rule.
        aliases: Other spellings of its provider prefixes (``google`` for ``gemini``).
    """

    name: str
    providers: Mapping[str, ProviderInfo]
    codecs: Sequence[Codec] = ()
    http_transports: Mapping[str, type[HttpTransport]] = field(default_factory=dict)
    sdk_transports: Mapping[str, Callable[..., AnyTransport]] = field(default_factory=dict)
    embedders: Mapping[str, type[Embedder]] = field(default_factory=dict)
    transports: Mapping[str, TransportFactory] = field(default_factory=dict)
    rules: Sequence[ProfileRule] = ()
    last_rules: Sequence[ProfileRule] = ()
    aliases: Mapping[str, str] = field(default_factory=dict)

    def host(self, provider: str) -> str | None:
        """The host of ``provider``'s own API: the only host its environment key goes to."""
        http = self.http_transports.get(provider)
        return None if http is None else http.vendor_hosts.get(http.provider)

    def key_env(self, provider: str) -> tuple[str, ...]:
        """The environment variables holding ``provider``'s key, in order."""
        http = self.http_transports.get(provider)
        return () if http is None else http.key_env

    def default_base_url(self, provider: str) -> str | None:
        """Where ``provider``'s requests go by default."""
        http = self.http_transports.get(provider)
        return None if http is None else http.default_base_url
