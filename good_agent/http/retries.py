"""Retries with backoff for the HTTP transports: the one place a request is sent again.

`Retries` is the policy every `HttpTransport`
sends through (``tenacity`` underneath). A request is sent again after a typed error
that a later attempt may not meet (`retryable`): HTTP 408, 409, 429 and 5xx, and a
server that could not be reached (`ModelConnectionError`).
The wait is the server's own when it gives one (``retry-after-ms`` or ``Retry-After``,
carried by the error as ``retry_after``) and is not longer than ``max_retry_after``;
otherwise an exponential backoff with jitter. A streamed reply is retried only until
its response began: once an event was read, nothing is sent again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

import anyio
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential_jitter,
)

from good_agent.types.errors import ModelConnectionError, ModelError

T = TypeVar("T")

RETRY_STATUSES = frozenset({408, 409, 429})
"""Statuses below 500 that are retried (every 5xx is too)."""


def retryable(error: BaseException) -> bool:
    """Whether a later attempt may succeed where ``error`` failed (see the module docstring)."""
    if isinstance(error, ModelConnectionError):
        return True
    status = error.status_code if isinstance(error, ModelError) else None
    return status is not None and (status in RETRY_STATUSES or status >= 500)


@dataclass(frozen=True, slots=True)
class Retries:
    """How often and how patiently a request is sent again.

    Args:
        max_retries: Attempts after the first (2, as the vendors' SDKs; 0: none).
        backoff: The first backoff wait in seconds, doubled each retry (with up to
            ``backoff`` seconds of jitter).
        max_backoff: The longest backoff wait.
        max_retry_after: The longest wait a server may ask for; a longer one is not
            honoured (the backoff applies instead).
        sleep: The awaitable sleep between attempts (``anyio.sleep``).
    """

    max_retries: int = 2
    backoff: float = 0.5
    max_backoff: float = 8.0
    max_retry_after: float = 60.0
    sleep: Callable[[float], Awaitable[None]] = field(default=anyio.sleep, compare=False)

    def wait(self, state: RetryCallState) -> float:
        """Seconds to wait before the next attempt: the server's ``retry_after`` when it
        gave one within ``max_retry_after``, else the backoff."""
        error = state.outcome.exception() if state.outcome is not None else None
        asked = getattr(error, "retry_after", None)
        if isinstance(asked, int | float) and 0 <= asked <= self.max_retry_after:
            return float(asked)
        backoff = wait_exponential_jitter(
            initial=self.backoff, max=self.max_backoff, jitter=self.backoff
        )
        return float(backoff(state))

    async def call(self, attempt: Callable[[], Awaitable[T]]) -> T:
        """The result of ``attempt()``, called again after a `retryable` error up
        to ``max_retries`` times; the last error is raised as it is."""
        if self.max_retries <= 0:
            return await attempt()
        try:
            # The first attempt runs bare: most requests succeed, and building the
            # retrying loop costs more CPU than the rest of a send.
            return await attempt()
        except ModelError as error:
            if not retryable(error):
                raise
            failed: list[ModelError] = [error]

        async def again() -> T:
            if failed:  # the loop's first attempt is the one that already failed
                raise failed.pop()
            return await attempt()

        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.max_retries + 1),
            wait=self.wait,
            retry=retry_if_exception(retryable),
            sleep=self.sleep,
            reraise=True,
        )
        return await retrying(again)


NO_RETRIES = Retries(max_retries=0)
"""Each request sent once."""
