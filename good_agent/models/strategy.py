"""Strategy choice: which tool-calling strategy each request of a model uses.

The one place that decides, for the agent's models and the bridge alike:

- an explicit mode is used as given and never falls back;
- ``AUTO`` follows the model's profile, except that a model no profile rule
  knows, served from an explicit ``base_url`` or by Ollama, is assumed to take the
  tools API (``NATIVE``), since such servers generally implement it (register a
  profile with ``mode="validated"`` for one that does not); elsewhere such a name is
  ``VALIDATED`` (`unknown_name_profile`, the one rule);
- an ``AUTO`` model that ends up ``NATIVE`` falls back to prompt-based calling
  (``VALIDATED``) when its server refuses tools, remembered by this choice (so by
  the model object that owns it; `Learned`), and has
  calls it writes into its text parsed (see `good_agent.models.prompt_fallback`);
- a request with no tools and no tool calls in its history is sent plainly in
  every mode (a structured or prompted rewrite would only change it).

`StrategyChoice.plan` encodes a request and returns a `Plan`: the
body, the `RequestContext` the
reply is decoded with, and what may happen next.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from good_agent.models.prompt_fallback import Learned, upstream_key
from good_agent.providers.capabilities import checked_messages
from good_agent.providers.history import history_tool_names
from good_agent.providers.modes import strategy_for_profile
from good_agent.providers.profiles import ModelProfile, unknown_name_profile, with_mode
from good_agent.providers.strategies.base import ToolCallingMode
from good_agent.providers.strategies.context import RequestContext
from good_agent.providers.strategies.native import CodecStrategy
from good_agent.providers.strategies.prompted import PromptedStrategy
from good_agent.providers.strategies.reply_streams import ReplyStream
from good_agent.providers.types import JSONDict
from good_agent.types.messages import ModelResponse

StrictSetting = bool | None | Literal["profile"]
"""Strict tools: ``"profile"`` follows the profile, else the codec's tri-state value."""


@dataclass(slots=True)
class Plan:
    """One encoded request: its strategy, body and context, and its fallback rights.

    ``plain``: sent without the strategy's rewrite (no tools involved);
    ``may_fall_back``: a refusal of tools may be retried prompted;
    ``content_calls``: calls written into the reply's text are parsed.
    """

    strategy: CodecStrategy
    body: JSONDict
    context: RequestContext
    plain: bool = False
    may_fall_back: bool = False
    content_calls: bool = False

    @property
    def mode(self) -> ToolCallingMode:
        """The mode the request was encoded in."""
        return ToolCallingMode.NATIVE if self.plain else self.strategy.mode

    def decode(self, raw: JSONDict) -> ModelResponse:
        """The whole reply, decoded with the request's context."""
        if self.plain:
            return CodecStrategy.decode_reply(self.strategy, raw, self.context)
        return self.strategy.decode_reply(raw, self.context)

    def reply_stream(self) -> ReplyStream:
        """A fresh decoder for the streamed reply."""
        if self.plain:
            return CodecStrategy.reply_stream(self.strategy, self.context)
        return self.strategy.reply_stream(self.context)


class StrategyChoice:
    """Chooses the strategy of each request of one model.

    Args:
        profile: The model's capability profile.
        mode: The configured mode (``AUTO``: see the module docs).
        strict: Strict tool schemas: ``"profile"`` or the codec's tri-state value.
        text_format: The text format prompted replies are parsed in.
        own_endpoint: The model is served at an explicit ``base_url`` (see
            `unknown_name_profile`).
        upstream: The server's address (the transport's ``base_url``): a fallback
            is remembered for this model on this server only.

    Attributes:
        learned: What this model learned at run time (the mode after a refusal of tools).
    """

    def __init__(
        self,
        profile: ModelProfile,
        mode: ToolCallingMode | str = ToolCallingMode.AUTO,
        *,
        strict: StrictSetting = "profile",
        text_format: str = "auto",
        own_endpoint: bool = False,
        upstream: str | None = None,
    ) -> None:
        self.requested = ToolCallingMode(mode)
        self.auto = self.requested is ToolCallingMode.AUTO
        profile = unknown_name_profile(profile, own_endpoint=own_endpoint)
        self.profile = with_mode(profile, self.requested)
        self.strict = strict
        self.text_format = text_format
        self.key = upstream_key(profile.provider, profile.model, upstream)
        self.learned = Learned(self.key)
        self._strategies: dict[ToolCallingMode, CodecStrategy] = {}
        self.default = self.for_mode(None)
        self.auto_native = self.auto and self.default.mode is ToolCallingMode.NATIVE

    @property
    def mode(self) -> ToolCallingMode:
        """The mode requests use unless told otherwise."""
        return self.default.mode

    def for_mode(self, mode: ToolCallingMode | None) -> CodecStrategy:
        """The strategy for ``mode`` (``None`` or ``AUTO``: the model's own)."""
        key = mode or ToolCallingMode.AUTO
        found = self._strategies.get(key)
        if found is None:
            profile = self.profile if mode is None else with_mode(self.profile, mode)
            found = strategy_for_profile(profile)
            if self.strict != "profile":
                found.strict = self.strict
            if isinstance(found, PromptedStrategy) and self.text_format != found.text_format:
                found = type(found)(
                    found.model,
                    found.codec,
                    strict=found.strict,
                    style=found.style,
                    text_format=self.text_format,
                )
            self._strategies[key] = found
        return found

    def plan(
        self,
        tools: list[JSONDict],
        messages: list[JSONDict],
        *,
        mode: ToolCallingMode | None = None,
        **kw: Any,
    ) -> Plan:
        """Encode one request; ``mode`` overrides the model's for this request only.

        Media parts the chosen strategy's model cannot take raise
        `ModelCapabilityError` first (or become placeholders).
        """
        chosen: ToolCallingMode | None = None if mode is ToolCallingMode.AUTO else mode
        if chosen is None and self.auto_native and tools:
            chosen = self.learned.mode
        strategy = self.for_mode(chosen)
        messages = checked_messages(self.profile, messages, strategy.mode)
        if not tools and not history_tool_names(messages):
            body, context = CodecStrategy.encode(strategy, [], messages, **kw)
            return Plan(strategy, body, context, plain=True)
        body, context = strategy.encode(tools, messages, **kw)
        native_auto = chosen is None and self.auto_native
        return Plan(
            strategy,
            body,
            context,
            may_fall_back=native_auto and bool(tools),
            content_calls=native_auto and bool(tools),
        )
