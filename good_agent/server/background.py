"""Run an ASGI app with uvicorn on a loopback port in a background thread.

Useful for tests, examples and benchmarks: the server gets its own event loop,
port 0 picks a free port, and leaving the ``with`` block shuts it down::

    with BackgroundServer(create_app(config)) as server:
        client = AsyncOpenAI(base_url=f"{server.url}/v1", api_key="...")
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class BackgroundServer:
    """A uvicorn server in a daemon thread.

    Args:
        app: The ASGI application.
        host: The address to bind (loopback by default).
        port: The port (0 picks a free one).
        uvicorn_options: Extra ``uvicorn.Config`` keyword arguments.
    """

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0, **uvicorn_options: Any):
        import uvicorn

        from good_agent.server.common.batched_writes import BatchedHTTP

        options: dict[str, Any] = {"log_level": "warning", "access_log": False, "http": BatchedHTTP}
        options.update(uvicorn_options)
        self.host = host
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind((host, port))
        self.port: int = self._socket.getsockname()[1]
        self.server = uvicorn.Server(uvicorn.Config(app, **options))
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=self._run, name=f"uvicorn:{self.port}", daemon=True)

    @property
    def url(self) -> str:
        """``http://host:port``."""
        return f"http://{self.host}:{self.port}"

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self.loop = asyncio.get_running_loop()
        await self.server.serve(sockets=[self._socket])

    def start(self, timeout: float = 10.0) -> BackgroundServer:
        """Start the thread and wait until the server accepts connections."""
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the server on port {self.port} did not start")
            time.sleep(0.01)
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Ask the server to exit and wait for its thread."""
        self.server.should_exit = True
        self._thread.join(timeout)
        self._socket.close()

    def run_coroutine(self, coroutine: Coroutine[Any, Any, T], timeout: float = 10.0) -> T:
        """Run ``coroutine`` on the server's event loop and return its result."""
        if self.loop is None:
            raise RuntimeError("the server is not running")
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
