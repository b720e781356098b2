"""The NATIVE strategy: the provider's own tools API, through its codec."""

from __future__ import annotations

from typing import Any

from good_agent.providers.codecs import Codec
from good_agent.providers.strategies.base import ToolCallingMode, ToolCallValidation
from good_agent.providers.strategies.context import RequestContext
from good_agent.providers.strategies.reply_streams import ReplyStream
from good_agent.providers.strategies.validation import validate_payload
from good_agent.providers.tool_names import ToolNameMap
from good_agent.providers.types import ChatRequest, JSONDict
from good_agent.types.messages import REPLAY_KEY, ModelResponse, ToolCall


class CodecStrategy:
    """Shared behaviour of strategies built on a codec (subclasses set ``mode``).

    Args:
        model: The upstream model id sent to the provider.
        codec: The wire format.
        strict: Tri-state strict tools for OpenAI codecs (``None``: when possible).
    """

    mode: ToolCallingMode = ToolCallingMode.NATIVE

    def __init__(self, model: str, codec: Codec, *, strict: bool | None = False) -> None:
        self.model = model
        self.codec = codec
        self.strict = strict

    def chat_request(
        self, tools: list[JSONDict], messages: list[JSONDict], **kw: Any
    ) -> ChatRequest:
        """The neutral request the codec encodes for these arguments."""
        settings = dict(kw.get("settings") or {})
        settings.setdefault("strict_tools", self.strict)
        return ChatRequest(
            messages=messages,
            tools=tools,
            tool_choice=kw.get("tool_choice"),
            parallel_tool_calls=kw.get("parallel_tool_calls"),
            response_format=kw.get("response_format"),
            settings=settings,
        )

    def names(
        self, tools: list[JSONDict] | None, messages: list[JSONDict] | None = None
    ) -> ToolNameMap:
        """The name map the codec builds for ``tools`` (strict nulls included)."""
        request = self.chat_request(list(tools or []), list(messages or []))
        names = self.codec.tool_names(request)
        if request.tools:
            self.codec.encode_request(self.model, request, names)
        return names

    def encode(
        self, tools: list[JSONDict], messages: list[JSONDict], **kw: Any
    ) -> tuple[JSONDict, RequestContext]:
        """The provider request body, and the context its reply is decoded with."""
        request = self.chat_request(tools, messages, **kw)
        names = self.codec.tool_names(request)
        body = self.codec.encode_request(self.model, request, names)
        return body, self.context_of(tools, names, **kw)

    def context_of(
        self, tools: list[JSONDict], names: ToolNameMap | None, **kw: Any
    ) -> RequestContext:
        """The request context for ``tools`` and the request's keyword arguments."""
        return RequestContext.build(
            tools,
            names,
            tool_choice=kw.get("tool_choice"),
            parallel_tool_calls=kw.get("parallel_tool_calls"),
        )

    def format_request(
        self, tools: list[JSONDict], messages: list[JSONDict], **kw: Any
    ) -> JSONDict:
        """The provider request body for ``tools`` and ``messages``."""
        return self.encode(tools, messages, **kw)[0]

    def decode_reply(self, response: JSONDict, context: RequestContext) -> ModelResponse:
        """The whole reply to the request ``context`` describes, normalized."""
        return self.codec.decode_response(response, context.names)

    def reply_stream(self, context: RequestContext) -> ReplyStream:
        """A fresh decoder of the streamed reply to the request ``context`` describes."""
        return ReplyStream(self.codec.decoder(context.names), context)

    def decode(self, response: JSONDict, tools: list[JSONDict] | None = None) -> ModelResponse:
        """The whole reply, normalized, names mapped back (the name map rebuilt from
        ``tools``; `decode_reply` reuses the one made at encoding)."""
        return self.decode_reply(response, self.context_of(list(tools or []), self.names(tools)))

    def extract_tool_calls(
        self, response: JSONDict, tools: list[JSONDict] | None = None
    ) -> list[ToolCall]:
        """Every tool call in the reply."""
        return list(self.decode(response, tools).tool_calls)

    def extract_tool_call(
        self, response: JSONDict, tools: list[JSONDict] | None = None
    ) -> JSONDict | None:
        """The first call, or the text answer, as a payload dict."""
        return payload_of(self.decode(response, tools))

    def validate_tool_call(
        self, payload: JSONDict, tools_by_name: dict[str, JSONDict]
    ) -> ToolCallValidation:
        """Check the payload's tool name and arguments."""
        return validate_payload(payload, tools_by_name)

    def assistant_turn(self, response: ModelResponse) -> list[JSONDict]:
        """The reply as provider-format history entries."""
        return self._history([neutral_assistant(response)])

    def tool_result_turn(self, results: list[JSONDict]) -> list[JSONDict]:
        """Tool messages as provider-format history entries."""
        return self._history(results)

    def _history(self, messages: list[JSONDict]) -> list[JSONDict]:
        body = self.codec.encode_request(self.model, ChatRequest(messages=messages))
        history: list[JSONDict] = body.get(self.codec.history_key) or []
        return history


class NativeStrategy(CodecStrategy):
    """Tools sent through the provider's tools API; calls read from its tool slots."""

    mode = ToolCallingMode.NATIVE


def payload_of(response: ModelResponse) -> JSONDict | None:
    """The first call as ``{"tool", "arguments", "scratchpad"}``, else the answer."""
    if response.tool_calls:
        call = response.tool_calls[0]
        return {"tool": call.name, "arguments": call.arguments, "scratchpad": response.content}
    if response.content is not None:
        return {"answer": response.content, "scratchpad": response.reasoning}
    return None


def neutral_assistant(response: ModelResponse) -> JSONDict:
    """The OpenAI chat assistant message for a normalized reply."""
    message: JSONDict = {"role": "assistant", "content": response.content}
    if response.replay:
        message[REPLAY_KEY] = [dict(item) for item in response.replay]
    if response.tool_calls:
        message["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments_text},
            }
            for call in response.tool_calls
        ]
    return message
