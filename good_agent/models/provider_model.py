"""A :class:`~good_agent.models.base.LanguageModel` built from a strategy and a transport.

The strategy (a :class:`~good_agent.providers.strategies.native.CodecAdapter` chosen
from the model's profile) turns the agent's request into a provider body and the
reply back into tool calls; the transport only sends bodies. So STRUCTURED and
VALIDATED modes work for the agent exactly like native tool calling.
``ModelRequest.settings`` may carry ``mode`` (a :class:`ToolCallingMode` or its
value) and ``parallel_tool_calls``; both are consumed here, never sent.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, ClassVar, Literal, Protocol

from good_agent.core.errors import ModelError
from good_agent.core.messages import to_openai_messages
from good_agent.models import fallback
from good_agent.models.base import ModelRequest, ModelResponse, ModelStreamItem, stream_whole
from good_agent.models.errors import decode_reply
from good_agent.providers.modes import adapter_for_profile
from good_agent.providers.profiles import ModelProfile, get_profile, with_mode
from good_agent.providers.strategies.base import ToolCallingMode
from good_agent.providers.strategies.native import CodecAdapter
from good_agent.providers.types import JSONDict

StrictSetting = bool | None | Literal["profile"]
"""Strict tools: ``"profile"`` follows the profile, else the codec's tri-state value."""


class Transport(Protocol):
    """Sends one provider request body and returns the reply body as a dict."""

    provider: str

    async def send(self, body: JSONDict) -> JSONDict:
        """Send ``body``; raise a :class:`~good_agent.core.errors.ModelError` on failure."""
        ...


class ProviderModel:
    """Codec + strategy + transport behind the ``LanguageModel`` protocol.

    Args:
        model: The model name, optionally provider-prefixed (``"anthropic:claude-..."``).
        transport: Where bodies are sent.
        mode: The tool-calling mode; ``AUTO`` uses the model's profile.
        settings: Default sampling settings, merged under each request's.
        profile: A ready profile (skips the registry lookup).
        strict: Strict tool schemas: ``"profile"`` (when the profile supports them and
            the schema allows), ``None`` (whenever the schema allows), ``True``, ``False``.
    """

    def __init__(
        self,
        model: str,
        transport: Transport,
        *,
        mode: ToolCallingMode | str = ToolCallingMode.AUTO,
        settings: dict[str, Any] | None = None,
        profile: ModelProfile | None = None,
        strict: StrictSetting = "profile",
    ) -> None:
        self.profile = profile or get_profile(model)
        self.strict = strict
        self.transport = transport
        self.mode = ToolCallingMode(mode)
        self.settings = dict(settings or {})
        self.adapter = self.adapter_for(self.mode)

    @property
    def model_name(self) -> str:
        """The upstream model id."""
        return self.profile.model

    def adapter_for(self, mode: ToolCallingMode) -> CodecAdapter:
        """The strategy for ``mode`` (``AUTO``: the profile's)."""
        adapter = adapter_for_profile(with_mode(self.profile, mode))
        if self.strict != "profile":
            adapter.strict = self.strict
        return adapter

    def _prepare(self, request: ModelRequest) -> tuple[CodecAdapter, JSONDict, dict[str, Any]]:
        settings = {**self.settings, **request.settings}
        mode = settings.pop("mode", None)
        parallel = settings.pop("parallel_tool_calls", None)
        adapter = self.adapter if mode is None else self.adapter_for(ToolCallingMode(mode))
        kwargs: dict[str, Any] = {"settings": settings, "tool_choice": request.tool_choice}
        if parallel is not None:
            kwargs["parallel_tool_calls"] = bool(parallel)
        messages = to_openai_messages(request.messages)
        return adapter, adapter.format_request(list(request.tools), messages, **kwargs), kwargs

    def build_body(self, request: ModelRequest) -> JSONDict:
        """The provider body this model sends for ``request``."""
        return self._prepare(request)[1]

    @property
    def provider(self) -> str:
        """The provider named in errors: the transport's, else the profile's."""
        return str(getattr(self.transport, "provider", "") or self.profile.provider)

    @property
    def fallback_key(self) -> str:
        """The name under which fallback decisions for this model are remembered."""
        return f"{self.profile.provider}:{self.profile.model}"

    def _may_fall_back(self, request: ModelRequest) -> bool:
        return (
            self.mode is ToolCallingMode.AUTO
            and "mode" not in request.settings
            and bool(request.tools)
            and self.adapter.mode is ToolCallingMode.NATIVE
        )

    async def request(self, request: ModelRequest) -> ModelResponse:
        """Send ``request`` and normalize the reply.

        In ``AUTO`` mode a native model falls back to prompt-based calling when its
        server rejects tools, and tool calls it writes into ``content`` are parsed
        (see :mod:`good_agent.models.fallback`).
        """
        tools = list(request.tools)
        if not self._may_fall_back(request):
            adapter, body, _ = self._prepare(request)
            return ModelResponse.from_provider(
                decode_reply(adapter, await self.transport.send(body), tools, self.provider)
            )
        key = self.fallback_key
        learned = fallback.remembered_mode(key)
        if learned is not None:
            return await self._request_in(learned, request)
        adapter, body, _ = self._prepare(request)
        try:
            raw = await self.transport.send(body)
        except ModelError as error:
            if not fallback.rejects_tools(error):
                raise
            fallback.remember(
                key, ToolCallingMode.VALIDATED, f"the server rejected tools ({error})"
            )
            return await self._request_in(ToolCallingMode.VALIDATED, request)
        decoded = fallback.calls_from_content(
            key, decode_reply(adapter, raw, tools, self.provider), tools
        )
        return ModelResponse.from_provider(decoded)

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelStreamItem]:
        """Yield the reply's deltas, then the reply (sent whole for now)."""
        return stream_whole(self, request)

    async def _request_in(self, mode: ToolCallingMode, request: ModelRequest) -> ModelResponse:
        settings = {**request.settings, "mode": mode}
        forced = ModelRequest(request.messages, request.tools, request.tool_choice, settings)
        adapter, body, _ = self._prepare(forced)
        return ModelResponse.from_provider(
            decode_reply(
                adapter, await self.transport.send(body), list(request.tools), self.provider
            )
        )


class _Unset:
    """Marks an argument left to the class default."""


UNSET = _Unset()


class SDKModel(ProviderModel):
    """A :class:`ProviderModel` built from the usual connection arguments.

    Subclasses name the provider whose profiles apply (``provider_prefix``), build
    their transport in :meth:`make_transport`, and may change the defaults of
    ``mode`` and ``strict``.

    Args:
        model: The upstream model id.
        base_url: Endpoint root (each provider's environment variable by default).
        api_key: Key (each provider's environment variable by default).
        client: A ready SDK or HTTP client (overrides the two above).
        settings: Default sampling settings, merged under each request's.
        mode: Tool-calling mode (the class default when not given).
        profile: A ready profile instead of the registry's.
        strict: Strict tools (see :class:`ProviderModel`; the class default when not given).
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
    ) -> None:
        transport = self.make_transport(model, base_url=base_url, api_key=api_key, client=client)
        super().__init__(
            model,
            transport,
            mode=self.default_mode if mode is None else mode,
            settings=settings,
            profile=profile or get_profile(f"{self.provider_prefix}:{model}"),
            strict=self.default_strict if isinstance(strict, _Unset) else strict,
        )

    @classmethod
    def make_transport(
        cls, model: str, *, base_url: str | None, api_key: str | None, client: Any
    ) -> Transport:
        """The transport this model sends its bodies with."""
        raise NotImplementedError
