"""Token usage: one response's counts, a run's totals and the limits a run must stay within."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING

from good_agent.types.errors import AgentRunError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from good_agent.types.messages import Message


def token_count(value: object) -> int | None:
    """A token count read from a provider's reply: a JSON number that is finite (an
    integer, or a float cut to one); ``None`` for anything else (a bool, a string,
    ``NaN``, an infinity), which counts nothing rather than failing the reply."""
    if type(value) is int:
        return value
    if type(value) is float and value - value == 0:  # not NaN, not an infinity
        return int(value)
    return None


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts reported by a provider for one response.

    ``input_tokens`` counts every input token, those read from or written to the
    provider's prompt cache included (as OpenAI and Gemini report them; Anthropic's
    three counts are added up); ``cache_read_tokens`` and ``cache_write_tokens`` say
    how many of them were read from the cache and written to it;
    ``cache_write_1h_tokens`` how many of the written ones are kept for an hour
    (Anthropic's ``ttl: "1h"``, priced higher than the default 5 minutes).
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cache_write_1h_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens


@dataclass(slots=True)
class RunUsage:
    """Totals over one run: model requests, tokens and tool calls.

    A run given another run's usage (``sub_agent.run(prompt, usage=ctx.usage)`` in a
    tool) counts into the same totals, and the limits of every run counting into
    them apply to all of them: a parent's ``request_limit`` stops a sub-agent that
    would exceed it.
    """

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    tool_calls: int = 0
    cache_read_tokens: int = 0
    """Input tokens read from the provider's prompt cache (counted in ``input_tokens``)."""
    cache_write_tokens: int = 0
    """Input tokens written to the provider's prompt cache (counted in ``input_tokens``)."""
    _price: Decimal | None = field(default=None, repr=False, compare=False)
    _unpriced: bool = field(default=False, repr=False, compare=False)
    _limits: list[UsageLimits] = field(default_factory=list, repr=False, compare=False)
    """The limits of the runs counting into these totals now."""
    limited: bool = field(default=False, init=False, repr=False, compare=False)
    """Whether any limits are in force on these totals (else nothing to check); a plain
    attribute, read before every request and tool call."""

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens

    @property
    def cost(self) -> Decimal | None:
        """The run's price in US dollars, from the ``genai-prices`` table (the ``cost``
        extra): the sum over its responses, cache reads and writes at their own prices.

        ``None`` when any response's price is unknown (a model or provider the table
        does not list, a local model, no model name, or ``genai-prices`` not
        installed) or no response was priced: never a guess.
        """
        return None if self._unpriced else self._price

    def add_response(self, usage: Usage, price: Decimal | None = None) -> None:
        """Count one model response and its token usage; ``price`` is its cost
        (``None``: unknown, which makes the run's [`cost`][good_agent.RunUsage.cost]
        unknown)."""
        self.requests += 1
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.output_tokens
        self.cache_read_tokens += usage.cache_read_tokens
        self.cache_write_tokens += usage.cache_write_tokens
        self.add_price(price)

    def add_price(self, price: Decimal | None) -> None:
        """Add the price of responses counted into these totals (``None``: unknown,
        which makes [`cost`][good_agent.RunUsage.cost] unknown)."""
        if price is None:
            self._unpriced = True
        else:
            self._price = price if self._price is None else self._price + price

    def enforce(self, limits: UsageLimits | None) -> Callable[[], None]:
        """Apply ``limits`` to these totals until the returned function is called."""
        if limits is None:
            return _nothing
        self._limits.append(limits)
        self.limited = True

        def release() -> None:
            self._limits.remove(limits)
            self.limited = bool(self._limits)

        return release

    def exceeded(self, check: Callable[[UsageLimits, RunUsage], str | None]) -> str | None:
        """The first reason ``check(limits, self)`` gives for the limits in force on
        these totals (e.g. ``UsageLimits.before_request``), or ``None``."""
        for limits in self._limits:
            reason = check(limits, self)
            if reason is not None:
                return reason
        return None


def _nothing() -> None:
    return None


class UsageLimitExceeded(AgentRunError):
    """A run went (or was about to go) past one of its [`UsageLimits`][good_agent.UsageLimits].

    ``usage`` holds the totals so far and ``messages`` the history, which never
    holds a tool call without its result.
    """

    def __init__(self, message: str, messages: Sequence[Message], usage: RunUsage) -> None:
        super().__init__(message, messages)
        self.usage = usage


@dataclass(frozen=True, slots=True)
class UsageLimits:
    """Upper bounds for one run; ``None`` means no limit.

    Request and tool-call limits are checked before the request or the calls that
    would exceed them; token limits right after the response that exceeds them.
    """

    request_limit: int | None = None
    input_tokens_limit: int | None = None
    output_tokens_limit: int | None = None
    total_tokens_limit: int | None = None
    tool_calls_limit: int | None = None

    def before_request(self, usage: RunUsage) -> str | None:
        """Why the next request would exceed a limit, or ``None``."""
        if self.request_limit is not None and usage.requests + 1 > self.request_limit:
            return f"the next request would exceed request_limit={self.request_limit}"
        return None

    def before_tool_calls(self, usage: RunUsage, count: int) -> str | None:
        """Why running ``count`` more tool calls would exceed a limit, or ``None``."""
        limit = self.tool_calls_limit
        if limit is not None and usage.tool_calls + count > limit:
            return (
                f"running {count} more tool call(s) would exceed tool_calls_limit={limit} "
                f"({usage.tool_calls} already run)"
            )
        return None

    def after_response(self, usage: RunUsage) -> str | None:
        """Which token limit the totals now exceed, or ``None``."""
        checks = (
            ("input_tokens_limit", self.input_tokens_limit, usage.input_tokens),
            ("output_tokens_limit", self.output_tokens_limit, usage.output_tokens),
            ("total_tokens_limit", self.total_tokens_limit, usage.total_tokens),
        )
        for name, limit, value in checks:
            if limit is not None and value > limit:
                return f"{value} tokens exceed {name}={limit}"
        return None
