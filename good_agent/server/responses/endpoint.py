"""``POST /v1/responses`` and ``GET /v1/responses/{id}`` on the bridge's model core.

A request is checked and translated (`good_agent.server.responses.wire`), the
conversation of its ``previous_response_id`` is loaded from the response store
(only the client key that stored it finds it), and the reply comes from the same
served models, fallbacks and stream priming as ``/v1/chat/completions``. Unless
``store`` is ``false``, the response and the conversation that led to it are
stored, streamed or not, before the client is told the response is complete.
Errors are OpenAI-shaped; a client that leaves cancels the upstream call.

To a route whose upstream speaks the Responses API, a request that asks for nothing the
bridge translates takes the pass-through path (`good_agent.server.passthrough`): the
client's body goes upstream with ``store: false``, and the upstream's response (its id
kept) is stored here, for the caller's key, as a translated one is. A request naming a
``previous_response_id`` always translates: its conversation is in the store.
"""

from __future__ import annotations

import dataclasses
import time

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp

from good_agent.providers.types import JSONDict
from good_agent.server.bridge import Bridge
from good_agent.server.common.auth import owner_of
from good_agent.server.common.errors import BridgeError, bad_request
from good_agent.server.common.ids import REQUEST_ID_HEADER, new_request_id
from good_agent.server.exchange import Exchange, ReplyJSON, error_response
from good_agent.server.passthrough import forward
from good_agent.server.responses.store import ResponseStore, StoredResponse
from good_agent.server.responses.stream import ResponseEventWriter
from good_agent.server.responses.wire import (
    DROPPED_ITEMS,
    ResponsesCall,
    assistant_message,
    check_input_media,
    conversation,
    output_items,
    parse_responses_request,
    response_body,
    response_id,
    whole_body,
    with_instructions,
)
from good_agent.server.served import BridgeRequest
from good_agent.server.streams import relay
from good_agent.types.messages import ModelResponse


def _refuse(error: BridgeError, request_id: str) -> Response:
    """``error`` OpenAI-shaped; a format the model cannot take is named as
    ``text.format``, the field a Responses client sent."""
    if error.param == "response_format":
        error = dataclasses.replace(
            error,
            message=error.message.replace("response_format", "text.format"),
            param="text.format",
        )
    return error_response(error, False, request_id)


def _translates(call: ResponsesCall, body: JSONDict) -> bool:
    """Whether the request asks for what only the translating path does, whatever its
    route: a ``previous_response_id`` (the conversation is in the bridge's store, as
    neutral messages), ``background`` (the upstream would have to store the response),
    and in ``input`` a ``reasoning`` item (left out upstream), a ``text`` part (read as
    ``input_text``) or a ``function_call_output`` whose ``output`` is a list (read as
    its text)."""
    if call.previous_response_id is not None or body.get("background"):
        return True
    items = body.get("input")
    for item in items if isinstance(items, list) else ():
        kind = item.get("type")
        if kind in DROPPED_ITEMS:
            return True
        if kind == "function_call_output" and not isinstance(item.get("output"), str):
            return True
        content = item.get("content")
        if isinstance(content, list) and any(
            isinstance(part, dict) and part.get("type") == "text" for part in content
        ):
            return True
    return False


class ResponsesEndpoint:
    """The Responses routes of one bridge, with its response store.

    Args:
        bridge: The bridge (keys, routes, limits, access log).
        store: Where responses are kept.
    """

    def __init__(self, bridge: Bridge, store: ResponseStore) -> None:
        self.bridge = bridge
        self.store = store

    async def aclose(self) -> None:
        """Close the store."""
        await self.store.aclose()

    async def _history(self, call: ResponsesCall, owner: str) -> list[JSONDict]:
        if call.previous_response_id is None:
            return conversation([], call)
        stored = await self.store.get(call.previous_response_id, owner)
        if stored is None:
            raise bad_request(
                f"previous response {call.previous_response_id!r} was not found "
                "(it was not stored, has expired, or belongs to another key)",
                "previous_response_id",
                "previous_response_not_found",
            )
        return conversation(stored.messages, call)

    async def _keep(
        self, call: ResponsesCall, owner: str, history: list[JSONDict], body: JSONDict
    ) -> None:
        if call.store:
            messages = [*history, assistant_message(body["output"])]
            await self.store.put(body["id"], owner, StoredResponse(body, messages))

    async def create(self, request: Request) -> ASGIApp:
        """``POST /v1/responses``."""
        bridge = self.bridge
        exchange = Exchange(bridge, request)

        async def serve() -> ASGIApp:
            bridge.authorize(request)
            owner = owner_of(request.headers)
            body = await bridge.read_json(request)
            call = parse_responses_request(body)
            exchange.stream = call.stream
            history = await self._history(call, owner)
            neutral = BridgeRequest(
                with_instructions(call, history),
                call.tools,
                call.tool_choice,
                call.parallel_tool_calls,
                call.response_format,
                call.settings,
            )
            check_input_media(call, bridge.media_limits, bridge.fetcher.hosts)
            exchange.route = bridge.route(call.model)
            # The request is known and its route chosen: what follows calls the model.
            plan = bridge.pass_through[call.model]
            if (
                plan is not None
                and plan.takes("responses", neutral)
                and not _translates(call, body)
            ):

                async def keep(final: JSONDict, reply: ModelResponse) -> None:
                    # Under the upstream's id, with the conversation as the translating
                    # path stores it (the reply's output as its codec reads it).
                    messages = [*history, assistant_message(output_items(reply))]
                    await self.store.put(final["id"], owner, StoredResponse(final, messages))

                return await forward(
                    exchange,
                    plan,
                    body,
                    stream=call.stream,
                    include_usage=False,
                    keep=keep if call.store else None,
                    shell=lambda: response_body(
                        call, response_id(), int(time.time()), status="in_progress", output=[]
                    ),
                )
            if call.stream:
                chosen, events, first, done = await exchange.open_stream(neutral)

                async def finished(final: JSONDict) -> None:
                    await self._keep(call, owner, history, final)

                writer = ResponseEventWriter(call, response_id(), finished)
                return exchange.events(
                    relay(chosen, events, first, writer, done=done, request_id=exchange.request_id)
                )
            chosen, reply = await exchange.complete(neutral)
            payload = whole_body(call, response_id(), reply)
            await self._keep(call, owner, history, payload)
            exchange.log(200, reply.usage, chosen)
            return exchange.json(payload)

        return await exchange.answer(serve, _refuse)

    async def retrieve(self, request: Request) -> Response:
        """``GET /v1/responses/{id}``: a stored response, to the key that stored it."""
        request_id = new_request_id()
        ident = str(request.path_params.get("response_id", ""))
        try:
            self.bridge.authorize(request)
            stored = await self.store.get(ident, owner_of(request.headers))
        except BridgeError as exc:
            return error_response(exc, False, request_id)
        if stored is None:
            error = BridgeError(
                404, f"no response with id {ident!r}", param="response_id", code="not_found"
            )
            return error_response(error, False, request_id)
        return ReplyJSON(stored.body, headers={REQUEST_ID_HEADER: request_id})
