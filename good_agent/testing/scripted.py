"""The scripted model double and the request recording every double shares.

`RecordingModel` records every request it gets, including the exact tool
signatures the model would have seen; `ScriptedModel` replays scripted
replies on it.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import itertools
import json
import types
import typing
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from good_agent.models.base import ModelRequest, ModelResponse, ModelStreamItem, deltas_of
from good_agent.providers.streaming.deltas import (
    FinishDelta,
    ModelDelta,
    ReasoningDelta,
    TextDelta,
    ToolCallArgs,
    ToolCallEnd,
    ToolCallStart,
    UsageDelta,
)
from good_agent.types.errors import ScriptExhaustedError
from good_agent.types.messages import ToolCall
from good_agent.types.usage import Usage

Responder = Callable[[ModelRequest], "ModelResponse | StreamedReply | str | Awaitable[Any]"]
"""A callable that computes a reply from the request."""


@dataclass(frozen=True, slots=True)
class StreamedReply:
    """A scripted reply delivered in chunks (build it with
    [`ScriptedModel.streamed`][good_agent.testing.ScriptedModel.streamed]).

    [`ScriptedModel.stream`][good_agent.testing.ScriptedModel] yields ``deltas`` one by one,
    then the assembled
    reply; [`ScriptedModel.request`][good_agent.testing.ScriptedModel] returns the assembled
    reply at once.
    """

    deltas: tuple[ModelDelta, ...]

    def response(self) -> ModelResponse:
        """The complete reply these deltas add up to."""
        text: list[str] = []
        reasoning: list[str] = []
        calls: dict[int, list[str]] = {}
        args: dict[int, list[str]] = {}
        usage, finish = Usage(), None
        for delta in self.deltas:
            if isinstance(delta, TextDelta):
                text.append(delta.text)
            elif isinstance(delta, ReasoningDelta):
                reasoning.append(delta.text)
            elif isinstance(delta, ToolCallStart):
                calls[delta.index] = [delta.id, delta.name]
                args[delta.index] = []
            elif isinstance(delta, ToolCallArgs):
                args[delta.index].append(delta.arguments)
            elif isinstance(delta, UsageDelta):
                usage = Usage(
                    input_tokens=delta.input_tokens or usage.input_tokens,
                    output_tokens=delta.output_tokens or usage.output_tokens,
                )
            elif isinstance(delta, FinishDelta):
                finish = delta.reason
        tool_calls = [
            ToolCall(
                id=calls[i][0], name=calls[i][1], arguments=json.loads("".join(args[i]) or "{}")
            )
            for i in sorted(calls)
        ]
        return ModelResponse(
            content="".join(text) or None,
            tool_calls=tool_calls,
            finish_reason=finish or ("tool_calls" if tool_calls else "stop"),
            usage=usage,
            reasoning="".join(reasoning) or None,
        )


class _Sent:
    """A message as it was when sent: a copy of its fields, and the message rebuilt
    from them the first time a test reads it.

    The copy is one level deep: a field set or replaced later (``message.content =
    ...``, a list appended to) does not show in it. What sits inside a list is
    shared: tool calls are frozen, and the agent never changes a sent message's
    nested values in place.
    """

    __slots__ = ("built", "fields", "fields_set", "kind")

    def __init__(self, message: BaseModel) -> None:
        kind = self.kind = type(message)
        fields = self.fields = dict(message.__dict__)
        containers = _CONTAINERS.get(kind)
        if containers is None:
            containers = _CONTAINERS[kind] = _container_fields(kind)
        for name in containers:
            value = fields.get(name)
            if isinstance(value, list):
                fields[name] = list(value)
            elif value is not None and not isinstance(value, str | int | float):
                fields[name] = copy.copy(value)
        self.fields_set = set(message.__pydantic_fields_set__)
        self.built: BaseModel | None = None

    def message(self) -> BaseModel:
        if self.built is None:
            self.built = self.kind.model_construct(set(self.fields_set), **self.fields)
        return self.built


_CONTAINERS: dict[type[BaseModel], tuple[str, ...]] = {}
"""Per message class, the fields that may hold a mutable value (copied when sent)."""

_SCALARS = (str, int, float, bool, type(None))


def _container_fields(kind: type[BaseModel]) -> tuple[str, ...]:
    """The fields of ``kind`` whose annotation is not made of immutable scalars only."""
    names = []
    for name, info in kind.model_fields.items():
        annotation = info.annotation
        union = typing.get_origin(annotation) in (typing.Union, types.UnionType)
        options = typing.get_args(annotation) if union else (annotation,)
        if not all(_immutable(option) for option in options):
            names.append(name)
    return tuple(names)


def _immutable(annotation: Any) -> bool:
    """Whether values of ``annotation`` cannot change: scalars, literals, frozen
    dataclasses and frozen pydantic models (their fields are checked too)."""
    if annotation in _SCALARS or typing.get_origin(annotation) is typing.Literal:
        return True
    params = getattr(annotation, "__dataclass_params__", None)
    if params is not None and params.frozen:
        hints = typing.get_type_hints(annotation)
        return all(_immutable(hints[f.name]) for f in dataclasses.fields(annotation))
    return False


@dataclass(slots=True)
class RecordedRequest:
    """A request as the scripted model received it (copied).

    Each message and tool definition is copied the first time the model receives
    that object; later requests that carry the same object share that copy (and
    consecutive requests that offer the same tools share one ``tools`` list). A
    message is kept as a copy of its fields, taken when it is sent, and rebuilt
    into a message the first time a test reads it; tool definitions and request
    options are deep-copied. The requests of one growing conversation share one
    log of copies (``log``, of which this request saw the first ``length``), so
    recording costs the same at the 200th request as at the first, in time and in
    memory. (Not frozen: it holds lists and dicts, which freezing would not protect.)
    """

    log: list[Any] = field(repr=False)
    """The conversation's copies; a message is kept as its fields (a `_Sent`)
    and rebuilt the first time it is read."""
    length: int
    tools: list[dict[str, Any]]
    tool_choice: Any = None
    settings: dict[str, Any] = field(default_factory=dict)
    response_format: dict[str, Any] | None = None

    @property
    def messages(self) -> list[Any]:
        """The messages of this request (copies, as they were when it was sent)."""
        return [e.message() if type(e) is _Sent else e for e in self.log[: self.length]]

    @property
    def tool_names(self) -> list[str]:
        """Names of the tools offered in this request."""
        return [t["function"]["name"] for t in self.tools]


class RecordingModel:
    """The base of the model doubles: records each request, replies with `_reply`.

    Subclasses implement `_reply`; `request` and `stream` record
    the request in `requests` first.
    """

    def __init__(self, *, name: str) -> None:
        self._name = name
        self.requests: list[RecordedRequest] = []
        self.streams_closed_early = 0
        self._copies: dict[int, tuple[Any, Any]] = {}
        self._sent: list[Any] = []
        self._log: list[Any] = []
        self._tools_seen: list[dict[str, Any]] | None = None
        self._tools_copied: list[dict[str, Any]] = []

    @property
    def model_name(self) -> str:
        """The double's name."""
        return self._name

    async def _reply(self, request: ModelRequest) -> ModelResponse | StreamedReply:
        raise NotImplementedError

    def _record_request(self, request: ModelRequest) -> None:
        """Append a copy of ``request`` to `requests`."""
        tools, choice, request_format = request.tools, request.tool_choice, request.response_format
        # The same signatures as the last request (list equality checks identity
        # first): the record shares the list of their copies.
        if tools != self._tools_seen:
            self._tools_seen = list(tools)
            self._tools_copied = [self._copy(t) for t in tools]
        self.requests.append(
            RecordedRequest(
                self._record(request.messages),
                len(request.messages),
                self._tools_copied,
                choice if choice is None or type(choice) is str else copy.deepcopy(choice),
                dict(request.settings),
                None if request_format is None else copy.deepcopy(request_format),
            )
        )

    async def request(self, request: ModelRequest) -> ModelResponse:
        """Record ``request`` and return the reply (a streamed one whole)."""
        self._record_request(request)
        entry = await self._reply(request)
        return entry.response() if isinstance(entry, StreamedReply) else entry

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelStreamItem]:
        """Record ``request`` and stream the reply's deltas, then the reply.

        Closing the stream before its end counts in `streams_closed_early`.
        """
        self._record_request(request)
        entry = await self._reply(request)
        response = entry.response() if isinstance(entry, StreamedReply) else entry
        deltas = entry.deltas if isinstance(entry, StreamedReply) else tuple(deltas_of(response))
        finished = False
        try:
            for delta in deltas:
                yield delta
            yield response
            finished = True
        finally:
            if not finished:
                self.streams_closed_early += 1

    def _record(self, messages: list[Any]) -> list[Any]:
        """The log holding copies of ``messages``: the last one, extended, when the
        history only grew since the last request, else a new one."""
        count = len(self._sent)
        # List equality checks identity first, so an unchanged prefix compares at C speed.
        if count and len(messages) >= count and messages[:count] == self._sent:
            added = messages[count:]
            log, copy_of = self._log, self._copy
            for message in added:
                log.append(copy_of(message))
            self._sent.extend(added)
        else:
            self._log = [self._copy(m) for m in messages]
            self._sent = list(messages)
        return self._log

    def _copy(self, value: Any) -> Any:
        """A deep copy of ``value``, made once per object (the original is kept alive,
        so its ``id`` is not reused)."""
        known = self._copies.get(id(value))
        if known is not None and known[0] is value:
            return known[1]
        copied = _Sent(value) if isinstance(value, BaseModel) else copy.deepcopy(value)
        self._copies[id(value)] = (value, copied)
        return copied


class ScriptedModel(RecordingModel):
    """A [`LanguageModel`][good_agent.LanguageModel] that replays a script.

    Each scripted entry is a text answer (``str``), a reply built with
    [`tool_call`][good_agent.testing.ScriptedModel.tool_call] /
    [`tool_calls`][good_agent.testing.ScriptedModel.tool_calls], a
    [`ModelResponse`][good_agent.ModelResponse], a chunked
    reply built with [`streamed`][good_agent.testing.ScriptedModel.streamed], or a callable that
    receives the
    [`ModelRequest`][good_agent.ModelRequest] and returns one of those. A callable may also raise (a
    [`ModelError`][good_agent.ModelError], say) to script a failing request.

    The script runs out after its last reply (the next request raises
    ``ScriptExhaustedError``), unless ``repeat=True``: then it starts over, for a model
    that answers any number of conversations (a callable entry that looks at the
    request's messages answers each conversation at its own step).

    Example:
        ```python
        model = ScriptedModel([
            ScriptedModel.tool_call("add", {"a": 1, "b": 2}),
            "The answer is 3.",
        ])
        ```
    """

    def __init__(
        self,
        responses: Iterable[ModelResponse | StreamedReply | str | Responder],
        *,
        name: str = "scripted",
        repeat: bool = False,
    ) -> None:
        super().__init__(name=name)
        self._script = list(responses)
        self._position = 0
        self._repeat = repeat and bool(self._script)

    @property
    def remaining(self) -> int:
        """How many scripted replies are left (of this round, with ``repeat``)."""
        return len(self._script) - self._position

    _ids = itertools.count(1)

    @classmethod
    def tool_call(
        cls, name: str, arguments: dict[str, Any] | None = None, *, id: str | None = None
    ) -> ModelResponse:
        """A reply with one tool call."""
        return cls.tool_calls((name, arguments or {}, id))

    @classmethod
    def tool_calls(
        cls, *calls: tuple[str, dict[str, Any]] | tuple[str, dict[str, Any], str | None]
    ) -> ModelResponse:
        """A reply with several tool calls (run in parallel by the agent)."""
        built = []
        for entry in calls:
            name, arguments = entry[0], entry[1]
            call_id = entry[2] if len(entry) > 2 else None
            built.append(
                ToolCall(id=call_id or f"call_{next(cls._ids)}", name=name, arguments=arguments)
            )
        return ModelResponse(tool_calls=built, finish_reason="tool_calls")

    @staticmethod
    def text(content: str) -> ModelResponse:
        """A plain text reply."""
        return ModelResponse(content=content, finish_reason="stop")

    @classmethod
    def streamed(
        cls,
        *chunks: str | ToolCall | ModelDelta,
        usage: Usage | None = None,
        finish_reason: str | None = None,
        args_chunk: int = 8,
    ) -> StreamedReply:
        """A reply streamed in chunks: text pieces, tool calls and raw deltas, in order.

        A ``str`` is a text delta; a [`ToolCall`][good_agent.ToolCall] (see
        [`call`][good_agent.testing.ScriptedModel.call]) opens a
        call whose JSON arguments arrive in pieces of ``args_chunk`` characters;
        any `deltas` delta (a
        ``ReasoningDelta``, say) is passed as is.
        """
        deltas: list[ModelDelta] = []
        index = 0
        for chunk in chunks:
            if isinstance(chunk, str):
                deltas.append(TextDelta(chunk))
            elif isinstance(chunk, ToolCall):
                text = json.dumps(chunk.arguments)
                deltas.append(ToolCallStart(index, chunk.id, chunk.name))
                step = max(1, args_chunk)
                deltas += [
                    ToolCallArgs(index, text[i : i + step]) for i in range(0, len(text), step)
                ]
                deltas.append(ToolCallEnd(index))
                index += 1
            else:
                deltas.append(chunk)
        if usage is not None:
            deltas.append(UsageDelta(usage.input_tokens, usage.output_tokens))
        deltas.append(FinishDelta(finish_reason or ("tool_calls" if index else "stop")))
        return StreamedReply(tuple(deltas))

    @classmethod
    def call(
        cls, name: str, arguments: dict[str, Any] | None = None, *, id: str | None = None
    ) -> ToolCall:
        """A tool call, as a chunk of [`streamed`][good_agent.testing.ScriptedModel.streamed]."""
        return ToolCall(id=id or f"call_{next(cls._ids)}", name=name, arguments=arguments or {})

    async def _reply(self, request: ModelRequest) -> ModelResponse | StreamedReply:
        if self._repeat and self._position >= len(self._script):
            self._position = 0  # the script starts over
        if self._position >= len(self._script):
            raise ScriptExhaustedError(
                f"ScriptedModel ran out of replies after {len(self._script)} "
                f"(request #{len(self.requests)} has no scripted reply)"
            )
        entry = self._script[self._position]
        self._position += 1
        if callable(entry) and not isinstance(entry, ModelResponse | StreamedReply):
            produced = entry(request)
            entry = await produced if inspect.isawaitable(produced) else produced
        if isinstance(entry, str):
            return ModelResponse(content=entry, finish_reason="stop", usage=Usage())
        if isinstance(entry, StreamedReply):
            return entry
        if isinstance(entry, ModelResponse):
            # Tool calls are frozen; a new list keeps the script's reply unchanged.
            return entry.with_tool_calls(list(entry.tool_calls))
        raise TypeError(
            "a scripted reply must be str, ModelResponse or StreamedReply, "
            f"got {type(entry).__name__}"
        )
