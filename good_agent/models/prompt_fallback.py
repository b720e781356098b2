"""Automatic fallback from native to prompt-based tool calling, remembered by the model
object that learned it (a `Learned` per model, named by `upstream_key`).

In ``AUTO`` mode, when a model resolved to native tool calling

- has a request rejected *because of its tools* (Ollama's HTTP 400 "does not
  support tools", vLLM started without a tool parser...), the request is retried
  once in ``VALIDATED`` (prompt-based) mode, and later requests of that model object go
  straight to prompt mode (another model, such as the same name on another server or
  another bridge route, keeps native tools until its own server refuses them);
- answers with tool calls written in ``content`` (a server without a tool parser, a
  model that writes ``{"tool_calls": [...]}`` or ``<tool_call>`` tags as text), the
  content is parsed into real tool calls. A reply with no call in its text keeps
  its text as sent, whitespace included, streamed and whole alike.

Each event is logged once per model object. Explicit modes never fall back. Which
requests may fall back is decided in `good_agent.models.strategy`.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from urllib.parse import urlsplit

from good_agent.providers.arguments import with_call_changes
from good_agent.providers.strategies.base import ToolCallingMode
from good_agent.providers.strategies.prompted import new_call_id
from good_agent.providers.strategies.reply_streams import ReplyStream, TextCallStream
from good_agent.providers.text import FormatParser, StreamingParser, get_parser
from good_agent.providers.tool_names import tool_name
from good_agent.providers.types import JSONDict
from good_agent.types.errors import ModelBadRequestError, ModelError
from good_agent.types.messages import ModelResponse

logger = logging.getLogger("good_agent.models.fallback")  # the name it is known by

_TOOL_WORDS = ("tool", "function call", "function_call", "functions")
_REFUSAL_WORDS = (
    "not support",
    "unsupported",
    "not supported",
    "not enabled",
    "enable-auto-tool-choice",
    "tool-call-parser",
    "not available",
    "unknown field",
    "unrecognized",
    "extra inputs are not permitted",
)


def upstream_key(provider: str, model: str, base_url: str | None = None) -> str:
    """The name fallback decisions are remembered and logged under: provider, model and
    the server's address (``provider:model@host/path``; no address: the provider's
    default endpoint). Credentials, query and fragment of ``base_url`` are left out."""
    key = f"{provider}:{model}"
    if not base_url:
        return key
    parts = urlsplit(base_url.strip())
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    address = f"{parts.scheme}://{host}{parts.path.rstrip('/')}" if host else "(unparsed address)"
    return f"{key}@{address}"


def rejects_tools(error: ModelError) -> bool:
    """Whether ``error`` is a provider refusing the request because of its tools."""
    if not isinstance(error, ModelBadRequestError):
        return False
    text = str(error).lower()
    return any(w in text for w in _TOOL_WORDS) and any(w in text for w in _REFUSAL_WORDS)


class Learned:
    """What one model learned about its upstream: the mode that works there after a
    refusal of tools (``None``: nothing learned yet), and which events it has logged.

    Each model object holds its own (a runtime decision, not process-wide state): a
    fresh model starts from its profile again.
    """

    __slots__ = ("_logged", "key", "mode")

    def __init__(self, key: str) -> None:
        self.key = key
        self.mode: ToolCallingMode | None = None
        self._logged: set[str] = set()

    def remember(self, mode: ToolCallingMode, reason: str) -> None:
        """Record that this upstream needs ``mode`` and log it, once."""
        self.mode = mode
        self.log_once("mode", f"{self.key}: {reason}; using {mode.value} tool calling from now on")

    def log_once(self, event: str, message: str) -> None:
        """Log ``message`` the first time ``event`` happens for this model."""
        if event not in self._logged:
            self._logged.add(event)
            logger.warning(message)


def calls_from_content(
    learned: Learned, response: ModelResponse, tools: Sequence[JSONDict]
) -> ModelResponse:
    """Parse tool calls a native reply wrote into ``content``; unchanged if there are none."""
    if not response.content or not tools:
        return response
    names = [tool_name(t) for t in tools]
    parser = _content_parser(names)
    parser.feed(response.content)
    parser.finish()
    return content_reply(learned, response, parser, [])


def content_reply(
    learned: Learned, plain: ModelResponse, parser: StreamingParser, ids: list[str]
) -> ModelResponse:
    """``plain`` with the calls ``parser`` found in its text (``ids``: given while streaming).

    Unchanged when its text is all content (the parser keeps whitespace, so the
    streamed text equals the stored text). A reply with native calls keeps those
    calls only; its content is the parsed content, as it was streamed.
    """
    result = parser.result()
    if plain.tool_calls or not result.calls:
        if result.content == (plain.content or ""):
            return plain
        # A call written next to native calls, or a ``<think>`` region streamed as
        # reasoning: the text is stored as it was streamed.
        return dataclasses.replace(
            plain, content=result.content or None, reasoning=result.reasoning or plain.reasoning
        )
    learned.log_once(
        "content", f"{learned.key}: tool calls arrived as text in content; parsing them"
    )
    calls = [
        with_call_changes(call, id=ids[n] if n < len(ids) else new_call_id())
        for n, call in enumerate(result.calls)
    ]
    return dataclasses.replace(
        plain, tool_calls=calls, content=result.content or None, finish_reason="tool_calls"
    )


def content_call_stream(learned: Learned, plan_stream: ReplyStream) -> ReplyStream:
    """A native reply stream whose text is also parsed for calls (``AUTO`` native models)."""
    context = plan_stream.context
    return TextCallStream(
        plan_stream.decoder,
        context,
        _content_parser(context.tool_names),
        lambda plain, parser, ids: content_reply(learned, plain, parser, ids),
        new_call_id,
    )


def _content_parser(names: Sequence[str]) -> StreamingParser:
    """The ``auto`` text parser for a native reply's content, whitespace kept."""
    parser = get_parser("auto")
    if isinstance(parser, FormatParser):
        return parser.streaming(names, trim=False)
    return parser.streaming(names)
