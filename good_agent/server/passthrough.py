"""The pass-through path: a request in its upstream's own API, forwarded as it is.

When a client speaks its route's upstream API (Chat Completions to an
OpenAI-compatible upstream, Messages to Anthropic, Responses to OpenAI's Responses
API) and nothing needs translating, the bridge does not decode the request into its
neutral form and encode it again, nor decode the reply into deltas and write them
anew. It forwards the client's JSON body with only what it must change (``model``
becomes the upstream model, the route's default ``settings`` are added where the body
has none, a stream asks the upstream for its usage) and relays the upstream's reply
bytes as they arrive (`good_agent.server.passthrough_stream`), reading only what it
needs: the usage for the access log, the upstream's errors, the end of the stream.

Every check of the translating path still runs first: authentication, the body
limits, the request parsed and validated by the same functions (so a bad field is
the same 400 naming it; tool names, schemas and media limits included). Upstream
errors are mapped as on the translating path (the client's error shape, secrets
redacted); a stream cut short ends with the client's error event; a client that
leaves cancels the upstream call.

Which routes qualify is decided once, at startup (`plan_of`): a chat route whose
transport is the built-in Chat Completions transport (or the Anthropic Messages
one, or the Responses API's), in native tool calling, with no ``fallback`` entries,
whose default ``settings`` are keys the client's API has under the same name, with
``pass_through`` on for the server and the route. Which requests take it is
decided per request (`PassThrough.takes`): the request's API is the route's,
the model has not learned to fall back to prompted calling, and the request asks
for nothing the bridge translates (a built-in tool, a strict JSON answer the
bridge checks, a tool marked ``strict`` whose schema the bridge makes strict,
``parallel_tool_calls: false`` (which the bridge enforces), media parts (checked
against the model's profile), and tools for a route in ``auto`` mode, which may fall
back to prompted calling or find calls written in the text). Anything else takes
the translating path, unchanged; the Responses endpoint adds its own rule (a
``previous_response_id`` among others: see `good_agent.server.responses.endpoint`).

A Responses request is sent with ``store: false``: the bridge, not the upstream,
keeps stored responses. `forward` hands the final response object (and the reply as
its codec reads it) to the endpoint's ``keep``, which stores it for the caller's key
under the upstream's id before the client is told the response is complete: a whole
reply before its body is returned, a stream before its final event is relayed
(`good_agent.server.passthrough_stream.ResponsesRelay`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic_core import to_json
from starlette.responses import Response
from starlette.types import ASGIApp

from good_agent.http.http_transport import HttpTransport
from good_agent.http.wire_errors import malformed_reply
from good_agent.providers import builtin_tools
from good_agent.providers.reply_shape import ReplyShapeError
from good_agent.providers.strategies.base import ToolCallingMode
from good_agent.providers.tool_names import tool_function
from good_agent.providers.types import ChatRequest, JSONDict
from good_agent.server.common.utf8 import utf8
from good_agent.server.media import media_parts
from good_agent.server.passthrough_stream import (
    ByteRelay,
    ChatRelay,
    ClientAPI,
    MessagesRelay,
    Renames,
    ResponsesRelay,
    model_renames,
    open_stream,
    renamed,
)
from good_agent.server.strict_answers import strict_schema
from good_agent.types.errors import ModelResponseError
from good_agent.types.messages import MEDIA_RESULT_KEY, ModelResponse

if TYPE_CHECKING:
    from good_agent.server.config import ServerConfig
    from good_agent.server.exchange import Exchange
    from good_agent.server.served import ServedModel


CHAT_SETTINGS = frozenset(
    (
        "temperature",
        "top_p",
        "max_tokens",
        "max_completion_tokens",
        "stop",
        "seed",
        "presence_penalty",
        "frequency_penalty",
        "user",
        "reasoning_effort",
        "service_tier",
        "logit_bias",
        "logprobs",
        "top_logprobs",
        "n",
        "metadata",
        "store",
        "verbosity",
        "prompt_cache_key",
        "safety_identifier",
    )
)
"""Route settings a Chat Completions body has under the same name (so a route whose
``settings`` hold only these may pass requests through)."""

MESSAGES_SETTINGS = frozenset(("temperature", "top_p", "top_k", "max_tokens"))
"""Route settings a Messages body has under the same name."""

RESPONSES_SETTINGS = frozenset(
    (
        "temperature",
        "top_p",
        "max_output_tokens",
        "reasoning",
        "user",
        "include",
        "service_tier",
        "metadata",
        "truncation",
        "top_logprobs",
        "max_tool_calls",
        "prompt_cache_key",
        "safety_identifier",
    )
)
"""Route settings a Responses body has under the same name (``store`` is not one:
the bridge keeps stored responses itself)."""

Keep = Callable[[JSONDict, ModelResponse], Awaitable[None]]
"""Called with a passed-through response's final object (as the client gets it) and
the reply its codec reads in it, before the client is told the response is complete."""

_STORED: Renames = ((b'"store":false', b'"store":true'), (b'"store": false', b'"store": true'))
"""A response the bridge stores says so (``store: true``, as the client asked), though
the upstream was asked not to store it."""

_BODY_TEXT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_JSON = b"application/json"
_REQUEST_ID = b"x-request-id"
_FORWARDED_HEADERS = {"messages": ("anthropic-beta",), "chat": (), "responses": ()}
"""Client headers forwarded upstream: Anthropic's beta switches (the API version is
the bridge's own)."""


@dataclass(frozen=True, slots=True)
class PassThrough:
    """How one route passes requests through (made once, by `plan_of`).

    Args:
        api: The client API the route's upstream speaks.
        route: The route.
        transport: Its upstream transport (endpoint, key header, wire).
        settings: The route's default settings, added where a body has none.
        renames: The upstream's model name replaced by the route's in replies.
    """

    api: ClientAPI
    route: ServedModel
    transport: HttpTransport
    settings: Mapping[str, Any]
    renames: Renames = ()

    def takes(self, api: ClientAPI, request: ChatRequest) -> bool:
        """Whether the validated ``request`` of a client of ``api`` passes through."""
        return (
            api == self.api
            and self.route.model.learned_mode is None
            and not (self.route.model.strategy.auto_native and request.tools)
            and request.parallel_tool_calls is not False
            and not request.settings.get(builtin_tools.SETTING)
            and not _has_media(request)
            and not any(tool_function(tool).get("strict") is True for tool in request.tools)
            and strict_schema(request) is None
        )

    def body(self, body: JSONDict, *, stream: bool) -> bytes:
        """The client's ``body`` as sent upstream."""
        out = dict(body)
        out["model"] = self.route.entry.model
        for key, value in self.settings.items():
            if key not in out:
                out[key] = value
        if stream and self.api == "chat":
            options = out.get("stream_options")
            options = dict(options) if isinstance(options, dict) else {}
            options["include_usage"] = True
            out["stream_options"] = options
        elif self.api == "responses":
            out["store"] = False  # the bridge keeps stored responses, not the upstream
            tools = out.get("tools")
            if isinstance(tools, list):
                out["tools"] = [_not_strict(tool) for tool in tools]
        # pydantic-core writes it (about a fifth of the standard library's time): the
        # client's body holds no non-finite number nor lone surrogate (`parse_body`
        # refuses them), nor do the settings of a route that passes through.
        return to_json(out)

    def headers(self, client: Mapping[str, str]) -> dict[str, str]:
        """The upstream request headers: the route's (its key) and the forwarded ones."""
        headers = self.transport.headers()
        for name in _FORWARDED_HEADERS[self.api]:
            value = client.get(name)
            if value is not None:
                headers[name] = value
        return headers


def plan_of(route: ServedModel, server: ServerConfig) -> PassThrough | None:
    """The route's pass-through plan, or ``None`` when it must translate (see the
    module docstring for the rule)."""
    entry = route.entry
    transport = route.model.transport
    if (
        not server.pass_through
        or not entry.pass_through
        or entry.kind != "chat"
        or entry.fallback
        or route.mode is not ToolCallingMode.NATIVE
        or not isinstance(transport, HttpTransport)
    ):
        return None
    # The API is the codec's (the registry's data: no vendor code is reached from here).
    api: ClientAPI
    codec = route.model.tool_strategy.codec.name
    if codec == "openai_chat" and transport.profile_provider == "openai":
        api, known = "chat", CHAT_SETTINGS
    elif codec == "anthropic_messages":
        api, known = "messages", MESSAGES_SETTINGS
    elif codec == "openai_responses" and transport.profile_provider == "openai-responses":
        api, known = "responses", RESPONSES_SETTINGS
    else:
        return None
    if not set(entry.settings) <= known or not _sendable(entry.settings):
        return None
    renames = model_renames(entry.model, entry.name)
    return PassThrough(api, route, transport, dict(entry.settings), renames)


def _sendable(settings: Mapping[str, Any]) -> bool:
    """Whether ``settings`` can be sent as JSON (no non-finite number, no lone
    surrogate, no TOML date): a route whose settings cannot translates, and fails as it
    always has."""
    try:
        _BODY_TEXT(dict(settings)).encode()
    except (TypeError, ValueError):
        return False
    return True


def _not_strict(tool: Any) -> Any:
    """A Responses function tool with ``strict: false`` where the client left it out:
    the Responses API's default is ``true``, the bridge's (on both paths) is a tool
    strict only when marked."""
    if isinstance(tool, dict) and tool.get("type") == "function" and tool.get("strict") is None:
        return {**tool, "strict": False}
    return tool


def _has_media(request: ChatRequest) -> bool:
    """Whether ``request`` holds media (image, document, audio parts, or media inside a
    tool result): the translating path checks each part against the model's profile,
    fetches or refuses URLs and moves tool-result media where the API takes it."""
    for message in request.messages:
        if MEDIA_RESULT_KEY in message:
            return True
    return next(iter(media_parts(request.messages)), None) is not None


async def forward(
    exchange: Exchange,
    plan: PassThrough,
    body: JSONDict,
    *,
    stream: bool,
    include_usage: bool,
    keep: Keep | None = None,
    shell: Callable[[], JSONDict] | None = None,
) -> ASGIApp:
    """Answer the request by passing ``body`` through ``plan``'s route; a Responses
    reply is handed to ``keep`` (to store it) before the client is told it is complete,
    and a Responses stream that fails before its ``response.created`` reports ``shell()``
    (the request's response object) as failed."""
    data = plan.body(body, stream=stream)
    headers = plan.headers(exchange.request.headers)
    transport = plan.transport
    if transport.unusable is not None:
        raise transport.unusable
    url = transport.url(body, stream=stream)
    renames = plan.renames if keep is None else plan.renames + _STORED
    if stream:
        relay: ByteRelay
        if plan.api == "responses":
            kept = None if keep is None else _kept(plan, keep)
            relay = ResponsesRelay(transport.provider, renames=renames, keep=kept, shell=shell)
        elif plan.api == "chat":
            relay = ChatRelay(transport.provider, include_usage=include_usage, renames=renames)
        else:
            relay = MessagesRelay(transport.provider, renames=renames)
        chunks = await open_stream(exchange, plan.route, transport, url, data, headers, relay)
        return exchange.events(chunks)
    route = plan.route
    provider = transport.provider

    async def post() -> Any:
        return await transport.wire.post(url, data, headers, provider=provider)

    reply = await exchange.watch.run(post, within=route.request_timeout, expired=route.timed_out)
    if reply.status >= 400:
        raise transport.status_error(reply.status, reply.headers, reply.body, url=url)
    body_out, decoded = checked_reply(plan, reply.body)
    body_out = renamed(body_out, renames)
    if keep is not None:
        await keep(json.loads(body_out), decoded)
    exchange.log(200, decoded.usage, route)
    return _raw_json(body_out, exchange.request_id)


def _kept(plan: PassThrough, keep: Keep) -> Callable[[JSONDict], Awaitable[None]]:
    """``keep`` for a stream's final response object, read by the route's codec first
    (a final object of the wrong shape is a `ModelResponseError`, and is not kept)."""

    async def kept(final: JSONDict) -> None:
        await keep(final, _decoded(plan, final))

    return kept


_LONE_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
"""A JSON escape of a UTF-16 surrogate (one of a pair, or alone)."""


def checked_reply(plan: PassThrough, body: bytes) -> tuple[bytes, ModelResponse]:
    """A whole reply's bytes as the client gets them, and the reply as the route's
    codec reads it (its usage, and what a Responses route stores): decoded once, so a
    reply of the wrong shape is a `ModelResponseError` (a 502) as on the translating
    path; the upstream's own bytes unless they escape a surrogate (then written again,
    a lone one replaced by U+FFFD)."""
    provider = plan.transport.provider
    try:
        reply = json.loads(body)
    except ValueError:
        raise ModelResponseError(
            f"{provider} sent a reply that is not valid JSON", provider=provider
        ) from None
    if not isinstance(reply, dict):
        raise malformed_reply(reply, provider=provider)
    decoded = _decoded(plan, reply)
    if _LONE_SURROGATE.search(body) is not None:
        body = utf8(_COMPACT(reply))
    return body, decoded


def _decoded(plan: PassThrough, reply: JSONDict) -> ModelResponse:
    """``reply`` read by the route's codec; a reply of the wrong shape (for Messages,
    one not of ``"type": "message"``; for Responses, one without its ``id``) is a
    `ModelResponseError`."""
    provider = plan.transport.provider
    try:
        decoded = plan.route.model.tool_strategy.codec.decode_response(reply, None)
    except ReplyShapeError as exc:
        raise ModelResponseError(
            f"{provider} sent a malformed reply: {exc.problem}", provider=provider, body=reply
        ) from exc
    except (AttributeError, TypeError, KeyError, IndexError, ValueError) as exc:
        raise ModelResponseError(
            f"{provider} sent a malformed reply: {type(exc).__name__}: {exc}",
            provider=provider,
            body=reply,
        ) from exc
    if plan.api == "messages" and reply.get("type") != "message":
        raise ModelResponseError(
            f"{provider} sent a malformed reply: its type is {reply.get('type')!r}, not 'message'",
            provider=provider,
            body=reply,
        )
    if plan.api == "responses" and not (isinstance(reply.get("id"), str) and reply["id"]):
        raise ModelResponseError(
            f"{provider} sent a malformed reply: the response has no id",
            provider=provider,
            body=reply,
        )
    return decoded


def _raw_json(body: bytes, request_id: str) -> Response:
    """A 200 reply of the upstream's JSON bytes, with the request id."""
    reply = Response.__new__(Response)
    reply.status_code = 200
    reply.background = None
    reply.body = body
    reply.raw_headers = [
        (_REQUEST_ID, request_id.encode("latin-1")),
        (b"content-length", str(len(body)).encode("latin-1")),
        (b"content-type", _JSON),
    ]
    return reply
