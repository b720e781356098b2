"""``POST /v1/chat/completions``: OpenAI's Chat Completions, streamed or not.

The body is read and parsed once into its call (`parse_chat_request`), translated to
the neutral request, served by the chosen route (or its fallbacks) and written back as
a ``chat.completion`` or as ``chat.completion.chunk`` events. Errors are OpenAI-shaped.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.types import ASGIApp

from good_agent.server.bridge import Bridge
from good_agent.server.chat.wire import ChunkWriter, completion_body, parse_chat_request
from good_agent.server.exchange import Exchange, error_response
from good_agent.server.media import check_media
from good_agent.server.passthrough import forward
from good_agent.server.streams import relay


async def handle_chat_completions(bridge: Bridge, request: Request) -> ASGIApp:
    """Serve one Chat Completions request."""
    exchange = Exchange(bridge, request)

    async def serve() -> ASGIApp:
        bridge.authorize(request)
        body = await bridge.read_json(request)
        call = parse_chat_request(body)
        check_media(call.request.messages, bridge.media_limits, bridge.fetcher.hosts)
        exchange.stream = call.stream
        exchange.route = bridge.route(call.model)
        # The request is known and its route chosen: what follows calls the model.
        plan = bridge.pass_through[call.model]
        if plan is not None and plan.takes("chat", call.request):
            return await forward(
                exchange, plan, body, stream=call.stream, include_usage=call.include_usage
            )
        if call.stream:
            chosen, events, first, done = await exchange.open_stream(call.request)
            writer = ChunkWriter(call.model, include_usage=call.include_usage)
            return exchange.events(
                relay(chosen, events, first, writer, done=done, request_id=exchange.request_id)
            )
        chosen, reply = await exchange.complete(call.request)
        payload = completion_body(reply, call.model)
        exchange.log(200, reply.usage, chosen)
        return exchange.json(payload)

    return await exchange.answer(
        serve, lambda error, request_id: error_response(error, False, request_id)
    )
