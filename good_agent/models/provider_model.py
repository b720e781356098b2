"""A `LanguageModel` built from a strategy and a transport.

The strategy (chosen per request by `StrategyChoice`
from the model's profile) turns the agent's request into a provider body and the
reply, whole or streamed, back into text and tool calls; the transport only moves
bodies. So STRUCTURED and VALIDATED modes work exactly like native tool calling,
streamed or not. ``ModelRequest.settings`` may carry ``mode`` (a
`ToolCallingMode` or its value), ``parallel_tool_calls`` and
``response_format``; they are consumed here, never sent as settings.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import AsyncGenerator
from typing import Any, ClassVar

from good_agent.http.transport import (
    AnyTransport,
    Transport,
    event_batches,
    one_attempt,
    streams,
    transport_address,
)
from good_agent.http.transport import aclose as close_transport
from good_agent.http.wire_errors import malformed_reply, stream_cut
from good_agent.models.base import ModelRequest, ModelStreamItem
from good_agent.models.guard import check_allow_model_requests
from good_agent.models.prompt_fallback import (
    calls_from_content,
    content_call_stream,
    rejects_tools,
)
from good_agent.models.strategy import Plan, StrategyChoice, StrictSetting
from good_agent.providers.builtin_tools import check_builtin_tools
from good_agent.providers.profiles import ModelProfile, get_profile, unknown_name_profile
from good_agent.providers.reply_shape import ReplyShapeError
from good_agent.providers.settings import apply_profile, check_settings, codec_of
from good_agent.providers.strategies.base import ToolCallingMode
from good_agent.providers.strategies.native import CodecStrategy
from good_agent.providers.strategies.reply_streams import ReplyStream
from good_agent.providers.streaming import IncompleteStreamError, ModelDelta, StreamFailedError
from good_agent.providers.streaming.whole import WholeReplyDecoder
from good_agent.providers.thinking import check_thinking
from good_agent.providers.types import ChatRequest, JSONDict
from good_agent.types.errors import (
    ModelConnectionError,
    ModelError,
    ModelIncompleteStreamError,
    ModelOverloadedError,
    ModelResponseError,
)
from good_agent.types.messages import ModelResponse, to_openai_messages
from good_agent.types.usage import Usage

__all__ = ["ProviderModel", "SDKModel", "StrictSetting", "Transport"]


class ProviderModel:
    """Codec + strategy + transport behind the ``LanguageModel`` protocol.

    Args:
        model: The model name, optionally provider-prefixed (``"anthropic:claude-..."``).
        transport: Where bodies are sent (see `good_agent.http.transport`).
        mode: The tool-calling mode; ``AUTO`` uses the model's profile.
        settings: Default sampling settings, merged under each request's.
        profile: A ready profile (skips the registry lookup).
        strict: Strict tool schemas: ``"profile"`` (when the profile supports them and
            the schema allows), ``None`` (whenever the schema allows), ``True``, ``False``.
        text_format: The text format prompted replies are parsed in (``auto``: any).
        own_endpoint: The model is served at an explicit address, which lets
            ``AUTO`` assume native tools for a model no profile rule knows (see
            `good_agent.models.strategy`).
        validation_retries: In ``VALIDATED`` mode, how many times a whole reply with
            an invalid call is sent back with the errors (the agent answers invalid
            calls through tool results instead, so the default is 0).
    """

    def __init__(
        self,
        model: str,
        transport: AnyTransport,
        *,
        mode: ToolCallingMode | str = ToolCallingMode.AUTO,
        settings: dict[str, Any] | None = None,
        profile: ModelProfile | None = None,
        strict: StrictSetting = "profile",
        text_format: str = "auto",
        own_endpoint: bool = False,
        validation_retries: int = 0,
    ) -> None:
        self.profile = unknown_name_profile(
            profile or get_profile(model), own_endpoint=own_endpoint
        )
        self.validation_retries = validation_retries
        self.strict = strict
        self.transport = transport
        self.mode = ToolCallingMode(mode)
        self.settings = dict(settings or {})
        self._codec = codec_of(self.profile)
        check_settings(self.settings, self._codec)
        self._warned: set[str] = set()
        self.strategy = StrategyChoice(
            self.profile,
            self.mode,
            strict=strict,
            text_format=text_format,
            own_endpoint=own_endpoint,
            upstream=transport_address(transport),
        )
        self.tool_strategy = self.strategy.default

    @property
    def model_name(self) -> str:
        """The upstream model id."""
        return self.profile.model

    async def aclose(self) -> None:
        """Close the transport's connections (when it has an ``aclose``)."""
        await close_transport(self.transport)

    def one_attempt(self) -> ProviderModel:
        """This model sending each request once (no retries by its transport or SDK
        client): a copy on the transport's ``one_attempt()``, or this model when its
        transport has none."""
        once = one_attempt(self.transport)
        if once is self.transport:
            return self
        clone = copy.copy(self)
        clone.transport = once
        return clone

    def strategy_for(self, mode: ToolCallingMode) -> CodecStrategy:
        """The strategy for ``mode`` (``AUTO``: the model's own)."""
        return self.strategy.for_mode(None if mode is ToolCallingMode.AUTO else mode)

    def chat_request(self, request: ModelRequest | ChatRequest) -> ChatRequest:
        """``request`` as the provider layer's neutral request (settings merged); a
        ``ChatRequest`` is already one.

        ``mode`` stays in the settings; [`plan`][good_agent.ProviderModel.plan] takes it out.
        """
        if isinstance(request, ChatRequest):
            return request
        settings = {**self.settings, **request.settings}
        parallel = settings.pop("parallel_tool_calls", None)
        response_format = settings.pop("response_format", None)
        if request.response_format is not None:
            response_format = request.response_format
        return ChatRequest(
            messages=to_openai_messages(request.messages),
            tools=list(request.tools),
            tool_choice=request.tool_choice,
            parallel_tool_calls=None if parallel is None else bool(parallel),
            response_format=response_format,
            settings=settings,
        )

    def plan(self, chat: ChatRequest, mode: ToolCallingMode | None = None) -> Plan:
        """Encode ``chat`` with the strategy chosen for it (``mode`` forces one).

        The model's default settings are merged under the request's; a ``mode``
        setting picks the mode of this request. A ``thinking`` setting on a model whose
        profile has no reasoning raises
        [`ModelCapabilityError`][good_agent.ModelCapabilityError].
        """
        settings = {**self.settings, **chat.settings}
        check_settings(settings, self._codec)
        check_thinking(settings, self.profile.supports_thinking, self.model_name)
        check_builtin_tools(settings, self.profile.codec, self.model_name)
        settings = apply_profile(settings, self.profile, self._warned)
        asked = settings.pop("mode", None)
        if mode is None and asked is not None:
            mode = ToolCallingMode(asked)
        kw: dict[str, Any] = {"settings": settings, "tool_choice": chat.tool_choice}
        if chat.parallel_tool_calls is not None:
            kw["parallel_tool_calls"] = chat.parallel_tool_calls
        if chat.response_format is not None:
            kw["response_format"] = chat.response_format
        return self.strategy.plan(list(chat.tools), list(chat.messages), mode=mode, **kw)

    def build_body(self, request: ModelRequest) -> JSONDict:
        """The provider body this model sends for ``request``."""
        return self.plan(self.chat_request(request)).body

    @property
    def provider(self) -> str:
        """The provider named in errors: the transport's, else the profile's."""
        return str(self.transport.provider or self.profile.provider)

    @property
    def fallback_key(self) -> str:
        """The name fallback decisions of this model are logged under: its provider,
        model and server (see `good_agent.models.prompt_fallback.upstream_key`)."""
        return self.strategy.key

    @property
    def learned_mode(self) -> ToolCallingMode | None:
        """The mode this model object switched to after its server refused tools
        (``None``: none). Kept by the model, not the process: a new model starts over."""
        return self.strategy.learned.mode

    def _fall_back(self, plan: Plan, error: ModelError, chat: ChatRequest) -> Plan:
        """The prompted plan after a refusal of tools, or ``error`` raised."""
        if not plan.may_fall_back or not rejects_tools(error):
            raise error
        self.strategy.learned.remember(
            ToolCallingMode.VALIDATED, f"the server rejected tools ({error})"
        )
        return self.plan(chat, ToolCallingMode.VALIDATED)

    async def request(self, request: ModelRequest | ChatRequest) -> ModelResponse:
        """Send ``request`` and return the reply, decoded from the wire.

        The agent sends a [`ModelRequest`][good_agent.ModelRequest]; the bridge sends the
        provider layer's [`ChatRequest`][good_agent.providers.ChatRequest] (OpenAI chat
        message dicts, as its clients wrote them). In ``AUTO`` mode a native model falls
        back to prompt-based calling when its server rejects tools, and tool calls it
        writes into ``content`` are parsed (see `good_agent.models.strategy`). In
        ``VALIDATED`` mode an invalid call is sent back to the model with its errors, up
        to ``validation_retries`` times; usage adds up over the attempts.
        """
        check_allow_model_requests(self.model_name)
        chat = self.chat_request(request)
        plan = self.plan(chat)
        try:
            raw = await self.transport.send(plan.body)
        except ModelError as error:
            plan = self._fall_back(plan, error, chat)
            raw = await self.transport.send(plan.body)
        decoded = self._decoded(plan, raw)
        retries = self.validation_retries if plan.mode is ToolCallingMode.VALIDATED else 0
        usage = decoded.usage
        while retries and any(call.arguments_error for call in decoded.tool_calls):
            retries -= 1
            said = plan.strategy.codec.decode_response(raw, None)
            chat = with_feedback(chat, said, decoded)
            plan = self.plan(chat, ToolCallingMode.VALIDATED)
            raw = await self.transport.send(plan.body)
            decoded = self._decoded(plan, raw)
            usage = Usage(
                usage.input_tokens + decoded.usage.input_tokens,
                usage.output_tokens + decoded.usage.output_tokens,
                usage.cache_read_tokens + decoded.usage.cache_read_tokens,
                usage.cache_write_tokens + decoded.usage.cache_write_tokens,
                usage.cache_write_1h_tokens + decoded.usage.cache_write_1h_tokens,
            )
        if usage is decoded.usage:  # one attempt: the reply as decoded
            return decoded
        return dataclasses.replace(decoded, usage=usage)

    def _decoded(self, plan: Plan, raw: JSONDict) -> ModelResponse:
        if not isinstance(raw, dict):
            raise malformed_reply(raw, provider=self.provider)
        try:
            decoded = plan.decode(raw)
        except ReplyShapeError as exc:
            raise ModelResponseError(
                f"{self.provider} sent a malformed reply: {exc.problem}",
                provider=self.provider,
                body=raw,
            ) from exc
        except (AttributeError, TypeError, KeyError, IndexError, ValueError) as exc:
            # A field of the wrong type the shape check does not cover (as in _feed),
            # or of the right type with a wrong value (a usage count of "12k").
            raise ModelResponseError(
                f"{self.provider} sent a malformed reply: {type(exc).__name__}: {exc}",
                provider=self.provider,
                body=raw,
            ) from exc
        if plan.content_calls:
            decoded = calls_from_content(
                self.strategy.learned, decoded, list(plan.context.tools)
            )
        if plan.context.parallel_tool_calls is False and len(decoded.tool_calls) > 1:
            decoded = dataclasses.replace(decoded, tool_calls=decoded.tool_calls[:1])
        return decoded

    async def stream(
        self, request: ModelRequest | ChatRequest
    ) -> AsyncGenerator[ModelStreamItem, None]:
        """Yield the reply's deltas as they arrive, then the reply.

        ``request`` is as for [`request`][good_agent.ProviderModel.request]. The upstream
        stream is read to its end (its connection goes back to the pool). A stream cut
        before the provider's final event raises
        [`ModelIncompleteStreamError`][good_agent.ModelIncompleteStreamError]. A refusal of
        tools before anything arrived falls back as in
        [`request`][good_agent.ProviderModel.request].
        """
        batches = self.stream_batches(request)
        try:
            async for batch in batches:
                for item in batch:
                    yield item
        finally:
            await batches.aclose()

    async def stream_batches(
        self, request: ModelRequest | ChatRequest
    ) -> AsyncGenerator[list[ModelStreamItem], None]:
        """The items of [`stream`][good_agent.ProviderModel.stream] in lists: the
        deltas of the events of one read of the connection together (never an empty
        list), the reply last."""
        check_allow_model_requests(self.model_name)
        chat = self.chat_request(request)
        plan = self.plan(chat)
        events = self._events(plan)
        try:
            first = await anext(events)
        except StopAsyncIteration:
            first = None
        except ModelError as error:
            await events.aclose()
            plan = self._fall_back(plan, error, chat)
            events = self._events(plan)
            first = None
        replies = self._reply_stream(plan)
        try:
            try:
                batch = first or []
                while True:
                    deltas: list[ModelStreamItem] = []
                    try:
                        for event in batch:
                            deltas += self._feed(replies, event)
                    except BaseException:
                        # The deltas before a malformed event are still given.
                        deltas += replies.flush()
                        if deltas:
                            yield deltas
                        raise
                    deltas += replies.flush()
                    if deltas:
                        yield deltas
                    try:
                        batch = await anext(events)
                    except StopAsyncIteration:
                        break
            except ModelConnectionError as exc:
                if first is None:
                    raise
                raise stream_cut(self.provider, exc.__cause__ or exc) from exc
            try:
                tail, response = replies.finish()
            except IncompleteStreamError as exc:
                raise ModelIncompleteStreamError(str(exc), provider=self.provider) from None
            except ReplyShapeError as exc:
                raise ModelResponseError(
                    f"{self.provider} sent a stream that holds no reply: {exc.problem}",
                    provider=self.provider,
                ) from None
        finally:
            await events.aclose()
        last: list[ModelStreamItem] = [*tail, response]
        yield last

    def _events(self, plan: Plan) -> AsyncGenerator[list[JSONDict], None]:
        return event_batches(self.transport, plan.body)

    def _reply_stream(self, plan: Plan) -> ReplyStream:
        replies = plan.reply_stream()
        if not streams(self.transport):
            replies.decoder = WholeReplyDecoder(
                plan.strategy.codec.decode_response, replies.decoder.names
            )
        if plan.content_calls:
            replies = content_call_stream(self.strategy.learned, replies)
        return replies

    def _feed(self, replies: ReplyStream, event: JSONDict) -> list[ModelDelta]:
        try:
            return replies.feed(event)
        except StreamFailedError as exc:
            raise ModelOverloadedError(str(exc), provider=self.provider) from None
        except ReplyShapeError as exc:
            raise self._malformed(exc.problem, event) from exc
        except (AttributeError, TypeError, KeyError, IndexError, ValueError) as exc:
            # A stream event of the wrong shape (a list where an object belongs...),
            # or with a wrong value (a usage count of "12k").
            raise self._malformed(f"{type(exc).__name__}: {exc}", event) from exc

    def _malformed(self, problem: str, event: object) -> ModelResponseError:
        return ModelResponseError(
            f"{self.provider} sent a malformed stream event: {problem}",
            provider=self.provider,
            body=event,
        )


def with_feedback(chat: ChatRequest, said: ModelResponse, decoded: ModelResponse) -> ChatRequest:
    """``chat`` followed by the model's reply and the errors of its invalid calls."""
    problems = "\n".join(
        f"- {call.name or 'a tool call'}: {call.arguments_error}"
        for call in decoded.tool_calls
        if call.arguments_error
    )
    feedback = (
        "These tool calls could not be used:\n"
        f"{problems}\n"
        "Write the calls again, with arguments that match the tools' parameters."
    )
    messages = [
        *chat.messages,
        {"role": "assistant", "content": said.content or ""},
        {"role": "user", "content": feedback},
    ]
    return dataclasses.replace(chat, messages=messages)


class _Unset:
    """Marks an argument left to the class default."""


UNSET = _Unset()


class SDKModel(ProviderModel):
    """A `ProviderModel` built from the usual connection arguments.

    Subclasses name the provider whose profiles apply (``provider_prefix``), build
    their transport in `make_transport`, and may change the defaults of
    ``mode`` and ``strict``.

    Args:
        model: The upstream model id.
        base_url: Endpoint root (each provider's environment variable by default).
        api_key: Key (each provider's environment variable by default).
        client: An ``httpx2.AsyncClient`` for the HTTP transport (the caller's to
            close), or a ready official SDK client, which is then sent with (and
            overrides the two above).
        max_retries: How many times the HTTP transport sends a failed request again
            (see `good_agent.http.retries`; an SDK client keeps its own).
        settings: Default sampling settings, merged under each request's.
        mode: Tool-calling mode (the class default when not given).
        profile: A ready profile instead of the registry's.
        strict: Strict tools (see `ProviderModel`; the class default when not given).
        text_format: The text format prompted replies are parsed in (``auto``: any).
    """

    provider_prefix: ClassVar[str] = "openai"
    default_mode: ClassVar[ToolCallingMode] = ToolCallingMode.AUTO
    default_strict: ClassVar[StrictSetting] = "profile"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        client: Any = None,
        settings: dict[str, Any] | None = None,
        mode: ToolCallingMode | str | None = None,
        profile: ModelProfile | None = None,
        strict: StrictSetting | _Unset = UNSET,
        text_format: str = "auto",
        max_retries: int = 2,
    ) -> None:
        transport = self.make_transport(
            model, base_url=base_url, api_key=api_key, client=client, max_retries=max_retries
        )
        super().__init__(
            model,
            transport,
            mode=self.default_mode if mode is None else mode,
            settings=settings,
            profile=profile or get_profile(f"{self.provider_prefix}:{model}"),
            strict=self.default_strict if isinstance(strict, _Unset) else strict,
            text_format=text_format,
            own_endpoint=base_url is not None,
        )

    @classmethod
    def make_transport(
        cls,
        model: str,
        *,
        base_url: str | None,
        api_key: str | None,
        client: Any,
        max_retries: int = 2,
    ) -> Transport:
        """The transport this model sends its bodies with."""
        raise NotImplementedError
