"""The bridge's own stack doing nothing, for benchmarks/bridge.py: a pass-through proxy
written as a bare ASGI app on uvicorn (with uvloop, httptools and the batched writes
of `good_agent.server.common.batched_writes`, as ``good-agent serve`` runs), calling
the upstream through the bridge's HTTP/1.1 client
(`good_agent.http.http1_wire.Http1Wire`), in its own process.

It forwards the request body and relays the reply's bytes, one write per upstream
read, with no check, no routing, no log: what the bridge's server and client cost
before the bridge does any of its own work. Set beside the floor (an aiohttp proxy
doing the same), it shows how much of the bridge's cost is its stack and how much is
its work. Run: ``python benchmarks/bridge_stack_floor.py PORT UPSTREAM_URL``.
"""

from __future__ import annotations

import sys
from typing import Any

import uvicorn

from good_agent.http.http1_wire import Http1Wire
from good_agent.server.common.batched_writes import BatchedHTTP

_JSON = [(b"content-type", b"application/json")]
_SSE = [(b"content-type", b"text/event-stream")]


def make_app(upstream: str) -> Any:
    """The proxy: every POST is forwarded to the same path on ``upstream``."""
    wire = Http1Wire()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (message := await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        if scope["method"] != "POST":  # the health check
            await send({"type": "http.response.start", "status": 200, "headers": _JSON})
            await send({"type": "http.response.body", "body": b"{}"})
            return
        url, headers = upstream + scope["path"], {"content-type": "application/json"}
        if b'"stream"' not in body:
            reply = await wire.post(url, body, headers, provider="upstream")
            await send({"type": "http.response.start", "status": reply.status, "headers": _JSON})
            await send({"type": "http.response.body", "body": reply.body})
            return
        async with wire.stream(url, body, headers, provider="upstream") as stream:
            await send({"type": "http.response.start", "status": stream.status, "headers": _SSE})
            async for chunk in stream.chunks():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b""})

    return app


def main() -> None:
    """Serve on the port given, one worker, as the bridge runs."""
    app = make_app(sys.argv[2])
    uvicorn.run(
        app,
        host="127.0.0.1",
        port=int(sys.argv[1]),
        log_level="warning",
        access_log=False,
        http=BatchedHTTP,
    )


if __name__ == "__main__":
    main()
