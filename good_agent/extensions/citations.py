"""The `CitationManager`: the model cites numbered sources instead of long URLs.

Default priority 200, conflict strategy ``CHAIN``. URLs are registered on
``MESSAGE_APPEND`` (user messages and tool results) and rewritten to ``[n]`` in
``LLM_REQUEST_BEFORE``, on a copy of the request: ``agent.messages`` keeps the
original text.

The index is per conversation: the agent's own conversation (``agent.messages``)
uses the manager's ``index``; every other conversation
(``agent.conversation()``, ``run(..., message_history=...)``) gets a new index of
its own in its [`ConversationState`][good_agent.ConversationState], so no
conversation sees another's sources. An ``index=`` given to the manager is shared
by all conversations on purpose.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from good_agent.adapters import ConflictStrategy, ToolAdapter, ToolMemo
from good_agent.core.components import AgentComponent, on
from good_agent.core.conversation import Conversation, StateKey, current_conversation
from good_agent.core.events import AgentEvents, EventContext
from good_agent.extensions.citation_arguments import ArgumentTranslator
from good_agent.extensions.citation_index import (
    CitationIndex,
    find_markdown_links,
    find_urls,
)
from good_agent.extensions.citation_schema import Slots, compile_url_slots, rewrite_schema
from good_agent.models import ModelRequest
from good_agent.tools import Tool
from good_agent.types.messages import SystemMessage, ToolMessage, ToolResponse, UserMessage

_MAX_JSON_SCAN = 1_000_000


class CitationAdapter(ToolAdapter):
    """Replaces URL parameters with source numbers and translates them back.

    A parameter is a URL parameter when it is named ``url``, ``*_url``, ``urls`` or
    ``*_urls``, or has ``format: uri``. ``url`` becomes ``citation_idx`` and ``urls``
    becomes ``citation_idxs``, ``source_url`` becomes ``source_citation_idx``. Map keys
    count like values: URL-typed keys (``dict[HttpUrl, ...]``) take source numbers,
    and a URL in the key of a map that holds URLs must be a registered source.
    """

    def __init__(
        self,
        manager: CitationManager,
        priority: int = 200,
        conflict_strategy: ConflictStrategy = ConflictStrategy.CHAIN,
    ) -> None:
        super().__init__(manager, priority, conflict_strategy)
        self.manager = manager
        self._slots: dict[str, Slots] = {}
        self._translators: dict[str, ArgumentTranslator] = {}
        self._detected: ToolMemo[bool] = ToolMemo()

    def url_slots(self, signature: dict[str, Any]) -> Slots:
        """Where the URLs of ``signature``'s parameters sit, at any depth."""
        parameters = signature.get("function", {}).get("parameters") or {}
        return compile_url_slots(parameters if isinstance(parameters, dict) else {})

    def should_adapt(self, tool: Tool, agent: Any) -> bool:
        """Adapt tools that have at least one URL field, at any depth."""
        known = self._detected.get(tool)
        if known is None:
            known = self._detected.set(tool, self.url_slots(tool.signature).root is not None)
        return known

    def signature_key(self, tool: Tool, agent: Any) -> int:
        """The number of known sources: the valid index range is part of the schema."""
        return len(self.manager.index)

    def adapt_signature(self, tool: Tool, signature: dict[str, Any], agent: Any) -> dict[str, Any]:
        """Replace each URL field with source numbers, in place of the original."""
        slots = self.url_slots(signature)
        self._slots[tool.name] = slots
        self._translators[tool.name] = ArgumentTranslator(
            slots, self._lookup, self.manager.valid_indices_text, self._registered
        )
        if slots.root is None:
            return signature
        function = dict(signature["function"])
        parameters = function.get("parameters") or {"type": "object"}
        function["parameters"] = rewrite_schema(parameters, slots, len(self.manager.index))
        return {**signature, "function": function}

    def adapt_parameters(self, tool_name: str, parameters: dict[str, Any], agent: Any) -> Any:
        """Translate source numbers back to the registered URLs, at any depth; refuse
        a URL given directly and a number that is not a source."""
        translator = self._translators.get(tool_name)
        return parameters if translator is None else translator(parameters)

    def _lookup(self, number: int) -> str:
        return self.manager.index.get(number).url

    def _registered(self, url: str) -> str | None:
        index = self.manager.index
        number = index.index_of(url)
        return None if number is None else index.get_url(number)

    def adapt_response(self, tool_name: str, response: ToolResponse, agent: Any) -> Any:
        """Add the valid indices to schema errors about an index parameter."""
        slots = self._slots.get(tool_name)
        error = response.error or ""
        if (
            response.success
            or slots is None
            or "Valid citation indices" in error
            or not any(name in error for name in slots.replacements)
        ):
            return response
        hint = f" Valid citation indices: {self.manager.valid_indices_text()}"
        return response.model_copy(update={"error": error + hint})


def _no_system() -> tuple[SystemMessage | None, str | None, str, SystemMessage | None]:
    return (None, None, "", None)


@dataclass(slots=True)
class _CitationState:
    """What the manager keeps for one conversation: its index and its rewrite caches."""

    index: CitationIndex
    last_rewrite: tuple[list[Any], list[Any], int] = field(default_factory=lambda: ([], [], 0))
    sources: tuple[object, int, bool, str] = (None, -1, False, "")
    system: tuple[SystemMessage | None, str | None, str, SystemMessage | None] = field(
        default_factory=_no_system
    )


class CitationManager(AgentComponent):
    """Registers URLs as numbered sources and lets the model cite and pass them by number.

    Args:
        index: The [`CitationIndex`][good_agent.CitationIndex] to use; share one between
            agents to keep
            the same numbering. A new one by default.
        rewrite_requests: Replace registered URLs with ``[n]`` in what the model reads
            and add a sources list to the system message.
        show_urls: Also show each source's full URL in the sources list.
        priority: Adapter priority (default 200).
        conflict_strategy: Adapter conflict strategy (default ``CHAIN``).

    Example:
        ```python
        agent = Agent("...", tools=[fetch], extensions=[CitationManager()])
        ```
    """

    def __init__(
        self,
        index: CitationIndex | None = None,
        *,
        rewrite_requests: bool = True,
        show_urls: bool = False,
        priority: int = 200,
        conflict_strategy: ConflictStrategy = ConflictStrategy.CHAIN,
    ) -> None:
        super().__init__()
        self._shared_index = index
        self._default = _CitationState(index if index is not None else CitationIndex())
        self._key: StateKey[_CitationState] = StateKey("citations", self._new_state)
        self.rewrite_requests = rewrite_requests
        self.show_urls = show_urls
        self.adapter = CitationAdapter(self, priority, conflict_strategy)
        self.register_tool_adapter(self.adapter)

    def _new_state(self) -> _CitationState:
        shared = self._shared_index
        return _CitationState(shared if shared is not None else CitationIndex())

    @property
    def _state(self) -> _CitationState:
        conversation = current_conversation()
        if conversation is None or conversation.own:
            return self._default
        return self._state_of(conversation)

    def _state_of(self, conversation: Conversation) -> _CitationState:
        if self._key in conversation.state:
            return conversation.state[self._key]
        state = conversation.state[self._key]
        # A conversation seeded from a history: its sources so far, in order.
        with conversation.active():
            for message in conversation.messages:
                self._register(message)
        return state

    @property
    def index(self) -> CitationIndex:
        """The index of the conversation running now (the agent's own conversation's
        outside a run); see [`index_for`][good_agent.CitationManager.index_for]."""
        return self._state.index

    def index_for(self, conversation: Conversation) -> CitationIndex:
        """The index of ``conversation`` (e.g. to render its answer's ``[n]`` links)."""
        if conversation.own:
            return self._default.index
        return self._state_of(conversation).index

    def valid_indices_text(self) -> str:
        """The valid indices and their labels, for error messages to the model."""
        entries = list(self.index)
        if not entries or len(entries) > 20:
            return self.index.valid_range()
        return "; ".join(f"[{e.index}] {e.label}" for e in entries)

    def register_text(self, text: str, *, metadata: dict[str, Any] | None = None) -> list[int]:
        """Register the URLs in ``text`` (markdown link titles included); return indices."""
        indices = [
            self.index.add(url, title=title or None, metadata=metadata)
            for title, url in find_markdown_links(text)
        ]
        indices.extend(self.index.add(url, metadata=metadata) for url in find_urls(text))
        return list(dict.fromkeys(indices))

    def register_result(self, tool_name: str, content: str) -> list[int]:
        """Register the URLs in a tool result, with titles from JSON ``url``/``title`` pairs."""
        if "://" not in content and ":\\/\\/" not in content:
            return []  # no URL, not even one JSON-escaped as ``https:\/\/``
        metadata = {"origin": "tool", "tool": tool_name}
        indices: list[int] = []
        stripped = content.lstrip()
        if stripped[:1] in ("{", "[") and len(content) <= _MAX_JSON_SCAN:
            try:
                data = json.loads(content)
            except ValueError:
                data = None
            for url, title in _records(data):
                indices.append(self.index.add(url, title=title, metadata=metadata))
        indices.extend(self.register_text(content, metadata=metadata))
        return list(dict.fromkeys(indices))

    @on(AgentEvents.MESSAGE_APPEND, priority=-100)
    def _on_append(self, ctx: EventContext) -> None:
        self._register(ctx.payload)

    def _register(self, message: Any) -> None:
        if isinstance(message, UserMessage):
            self.register_text(message.text, metadata={"origin": "user"})
        elif isinstance(message, ToolMessage) and not message.is_error:
            content = message.content
            if "://" in content or ":\\/\\/" in content:  # else no URL (see register_result)
                self.register_result(message.tool_name, content)

    @on(AgentEvents.LLM_REQUEST_BEFORE, priority=-100)
    def _on_request(self, ctx: EventContext) -> ModelRequest | None:
        if not self.rewrite_requests or not len(self.index):
            return None
        return self.rewrite(ctx.payload)

    def rewrite(self, request: ModelRequest) -> ModelRequest:
        """A copy of ``request`` with ``[n]`` for registered URLs, plus the sources list."""
        state = self._state
        sent, done, version = state.last_rewrite
        history, count = request.messages, len(sent)
        # A history that only grew since the last request, with no source added or
        # changed: only the new messages are rewritten (list equality checks identity
        # first). ``sent`` and ``done`` are this manager's own lists, extended in place.
        if version == state.index.version and count and history[:count] == sent:
            added = history[count:]
            if added:
                sent.extend(added)
                done.extend([self._rewrite_message(m) for m in added])
        else:
            sent = list(history)
            done = [self._rewrite_message(m) for m in history]
            state.last_rewrite = (sent, done, state.index.version)
        first = done[0] if done and isinstance(done[0], SystemMessage) else None
        system = self._system_message(first)
        if first is not None:
            messages = done.copy()
            messages[0] = system
        else:
            messages = [system, *done]
        return request.with_messages(messages)

    def _system_message(self, first: SystemMessage | None) -> SystemMessage:
        """``first`` with the sources list added (or the list alone): the same object
        while neither changes, so the model's client sees an unchanged prefix."""
        sources = self.sources_message()
        state = self._state
        made_from, content, text, made = state.system
        if (
            made is not None
            and made_from is first
            and text is sources
            and (first is None or first.content is content)
        ):
            return made
        if first is None:
            made = SystemMessage(content=sources)
        else:
            made = first.model_copy(update={"content": f"{first.content}\n\n{sources}"})
        state.system = (first, first.content if first else None, sources, made)
        return made

    def sources_message(self) -> str:
        """The sources list added to the system message (rebuilt when a source changes)."""
        state = self._state
        index = state.index
        built_for, version, shown, text = state.sources
        if built_for is not index or version != index.version or shown != self.show_urls:
            text = (
                "Sources (cite them as [n]; tools that take a source accept its number n):\n"
                + index.sources_text(show_urls=self.show_urls)
            )
            state.sources = (index, index.version, self.show_urls, text)
        return text

    def _rewrite_message(self, message: Any) -> Any:
        content = getattr(message, "content", None)
        # Every URL the index can replace has a "://" (checked here, before a call).
        if isinstance(content, str) and "://" in content:
            new = self.index.replace_urls(content)
            if new != content:
                return message.model_copy(update={"content": new})
        return message

    def render_markdown(self, text: str, *, style: str = "inline") -> str:
        """Render the ``[n]`` references of ``text`` (a final answer) as markdown links."""
        return self.index.render_markdown(text, style=style)


def _records(data: Any) -> Iterable[tuple[str, str | None]]:
    """``(url, title)`` pairs from dicts with a ``url`` key, anywhere in ``data``."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            url = item.get("url")
            if isinstance(url, str) and url.lower().startswith(("http://", "https://")):
                title = item.get("title") or item.get("name")
                yield url, title if isinstance(title, str) else None
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
