"""The floor for benchmarks/bridge.py: a pass-through proxy in aiohttp, in its own process.

It forwards the request body to the upstream and the reply's bytes back, as they
arrive (one write per upstream read), and does nothing else: no validation, no
decoding, no re-encoding, no ids, no log. Whatever a Python proxy on one event loop
must spend (an HTTP server, an HTTP client, the loop) it spends; the bridge's cost
is read as a ratio of it. Run: ``python benchmarks/bridge_floor.py PORT UPSTREAM_URL``
(``UPSTREAM_URL`` like ``http://127.0.0.1:8000``).
"""

from __future__ import annotations

import asyncio
import sys

from aiohttp import ClientSession, TCPConnector, web


def make_app(upstream: str) -> web.Application:
    """The proxy: every path is forwarded to the same path on ``upstream``."""
    app = web.Application()

    async def session_ctx(app: web.Application) -> object:
        app["session"] = ClientSession(connector=TCPConnector(limit=100))
        yield
        await app["session"].close()

    app.cleanup_ctx.append(session_ctx)

    async def forward(request: web.Request) -> web.StreamResponse:
        session: ClientSession = request.app["session"]
        body = await request.read()
        headers = {"content-type": request.headers.get("content-type", "application/json")}
        async with session.request(
            request.method, upstream + request.path, data=body, headers=headers
        ) as reply:
            if reply.content_type != "text/event-stream":
                data = await reply.read()
                return web.Response(body=data, status=reply.status, content_type=reply.content_type)
            response = web.StreamResponse(status=reply.status)
            response.content_type = reply.content_type
            await response.prepare(request)
            async for chunk in reply.content.iter_any():
                await response.write(chunk)
            await response.write_eof()
            return response

    app.router.add_route("*", "/{tail:.*}", forward)
    return app


def main() -> None:
    """Serve on ``uvloop`` when it is installed (as uvicorn does for the bridge)."""
    try:
        import uvloop
    except ImportError:
        loop = asyncio.new_event_loop()
    else:
        loop = uvloop.new_event_loop()
    app = make_app(sys.argv[2])
    web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), access_log=None, loop=loop)


if __name__ == "__main__":
    main()
