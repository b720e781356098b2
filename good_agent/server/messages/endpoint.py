"""``POST /v1/messages``: Anthropic's Messages API, streamed or not.

The body is read and parsed once into its call (`parse_messages_request`), translated
to the neutral request, served by the chosen route (or its fallbacks) and written back
as a ``message`` or as Anthropic's stream events. Errors are Anthropic-shaped.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.types import ASGIApp

from good_agent.server.bridge import Bridge
from good_agent.server.exchange import Exchange, error_response
from good_agent.server.media import check_media
from good_agent.server.messages.wire import (
    MessageStreamWriter,
    message_body,
    parse_messages_request,
)
from good_agent.server.passthrough import forward
from good_agent.server.streams import relay


async def handle_messages(bridge: Bridge, request: Request) -> ASGIApp:
    """Serve one Messages request."""
    exchange = Exchange(bridge, request)

    async def serve() -> ASGIApp:
        bridge.authorize(request)
        body = await bridge.read_json(request)
        call = parse_messages_request(body)
        check_media(call.request.messages, bridge.media_limits, bridge.fetcher.hosts)
        exchange.stream = call.stream
        exchange.route = bridge.route(call.model)
        # The request is known and its route chosen: what follows calls the model.
        plan = bridge.pass_through[call.model]
        if plan is not None and plan.takes("messages", call.request):
            return await forward(exchange, plan, body, stream=call.stream, include_usage=False)
        if call.stream:
            chosen, events, first, done = await exchange.open_stream(call.request)
            writer = MessageStreamWriter(call.model)
            return exchange.events(
                relay(chosen, events, first, writer, done=done, request_id=exchange.request_id)
            )
        chosen, reply = await exchange.complete(call.request)
        payload = message_body(reply, call.model)
        exchange.log(200, reply.usage, chosen)
        return exchange.json(payload)

    return await exchange.answer(
        serve, lambda error, request_id: error_response(error, True, request_id)
    )
