"""The :class:`AuthInjector`: credentials go into tool parameters the model never sees.

Default priority 1000 (the highest of the built-in extensions: its parameters are
filled in last, just before the call, and it redacts responses first), conflict
strategy ``EXCLUSIVE``: another adapter touching a credential parameter is an
:class:`~good_agent.AdapterConflictError`, never a silent override. Rules and the
scope identifier live in :mod:`good_agent.extensions.credentials`.
"""

from __future__ import annotations

import hashlib
import logging
import weakref
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import SecretStr

from good_agent.adapters import ConflictStrategy, ToolAdapter
from good_agent.core.components import AgentComponent, on
from good_agent.core.errors import GoodAgentError, ToolError
from good_agent.core.events import AgentEvents, EventContext
from good_agent.core.messages import ToolResponse
from good_agent.extensions._common import REDACTED
from good_agent.extensions.credentials import (
    DEFAULT_SCOPE_KEY,
    CredentialRule,
    CredentialSource,
    credential_scope,
    resolve_credential,
)
from good_agent.tools import Tool

_MAX_REMEMBERED = 64

REDACTED_LOGGERS = ("good_agent.tools", "good_agent.events")
"""Loggers an :class:`AuthInjector` redacts its secrets from by default."""


class AuthAdapter(ToolAdapter):
    """Removes credential parameters from signatures and fills them in at call time."""

    def __init__(
        self,
        injector: AuthInjector,
        priority: int = 1000,
        conflict_strategy: ConflictStrategy = ConflictStrategy.EXCLUSIVE,
    ) -> None:
        super().__init__(injector, priority, conflict_strategy)
        self.injector = injector
        self._rules: dict[str, tuple[CredentialRule, ...]] = {}
        self._chosen: weakref.WeakKeyDictionary[Tool, tuple[int, tuple[CredentialRule, ...]]] = (
            weakref.WeakKeyDictionary()
        )

    def rules_for(self, tool: Tool) -> tuple[CredentialRule, ...]:
        """The rules that apply to ``tool``; an explicit rule for a tool lacking its
        parameter is a configuration error."""
        cached = self._chosen.get(tool)
        if cached is not None and cached[0] == self.injector.version:
            return cached[1]
        props = (tool.signature["function"].get("parameters") or {}).get("properties") or {}
        chosen = []
        for rule in self.injector.rules:
            if rule.tools is not None and tool.name not in rule.tools:
                continue
            if rule.parameter not in props:
                if rule.tools is not None:
                    raise GoodAgentError(
                        f"AuthInjector: tool '{tool.name}' has no parameter '{rule.parameter}'"
                    )
                continue
            if rule.when is None or rule.when(tool):
                chosen.append(rule)
        result = tuple(chosen)
        self._chosen[tool] = (self.injector.version, result)
        return result

    def should_adapt(self, tool: Tool, agent: Any) -> bool:
        """Adapt tools that at least one credential rule selects."""
        return bool(self.rules_for(tool))

    def adapt_signature(self, tool: Tool, signature: dict[str, Any], agent: Any) -> dict[str, Any]:
        """Remove the credential parameters."""
        rules = self.rules_for(tool)
        self._rules[tool.name] = rules
        hidden = {rule.parameter for rule in rules}
        function = dict(signature["function"])
        parameters = dict(function.get("parameters") or {"type": "object"})
        parameters["properties"] = {
            k: v for k, v in (parameters.get("properties") or {}).items() if k not in hidden
        }
        if "required" in parameters:
            parameters["required"] = [r for r in parameters["required"] if r not in hidden]
        function["parameters"] = parameters
        return {**signature, "function": function}

    async def adapt_parameters(
        self, tool_name: str, parameters: dict[str, Any], agent: Any
    ) -> dict[str, Any]:
        """Resolve each credential and put it in place, as a :class:`SecretStr`."""
        result = dict(parameters)
        for rule in self._rules.get(tool_name, ()):
            result.pop(rule.parameter, None)
        for rule in self._rules.get(tool_name, ()):
            try:
                secret = await resolve_credential(rule.source)
            except Exception as exc:
                raise ToolError(
                    f"credentials for tool '{tool_name}' could not be obtained "
                    f"({type(exc).__name__})"
                ) from exc
            self.injector.remember(secret)
            value = SecretStr(rule.prefix + secret.get_secret_value()) if rule.prefix else secret
            if rule.header is None:
                result[rule.parameter] = value
            else:
                headers = dict(result.get(rule.parameter) or {})
                headers[rule.header] = value
                result[rule.parameter] = headers
        return result

    def adapt_response(self, tool_name: str, response: ToolResponse, agent: Any) -> Any:
        """Redact any injected secret a tool echoed back in its response or error."""
        return self.injector.redact_response(response)


class AuthInjector(AgentComponent):
    """Injects credentials into selected tools' parameters; the model never sees them.

    Credentials are held as :class:`~pydantic.SecretStr` and reach the tool as
    ``SecretStr`` (a header credential as a ``dict[str, SecretStr]`` entry): the tool
    calls ``get_secret_value()`` at the last moment. So event payloads, logs and cache
    keys only ever show ``'**********'``. Any injected value a tool echoes in its
    response or error text is replaced by ``[REDACTED]``.

    Args:
        credentials: ``{parameter: value or provider}`` applied to every tool that has
            that parameter (narrow it with ``tools`` / ``when``).
        tools: Tool names the ``credentials`` apply to.
        when: A predicate selecting the tools the ``credentials`` apply to.
        scope_key: HMAC key for :meth:`scope_of` (share it between processes that
            share a cache).
        redact_loggers: Loggers whose records get injected secrets redacted (the
            core's tool and event loggers by default), for tools that put a revealed
            secret in an exception message.
        priority: Adapter priority (default 1000).
        conflict_strategy: Adapter conflict strategy (default ``EXCLUSIVE``).

    Example:
        ```python
        auth = AuthInjector().bearer(get_token, tools=["search"])
        auth.inject("api_key", os.environ["WEATHER_KEY"], tools=["weather"])
        ```
    """

    def __init__(
        self,
        credentials: Mapping[str, CredentialSource] | None = None,
        *,
        tools: Iterable[str] | None = None,
        when: Callable[[Tool], bool] | None = None,
        scope_key: bytes = DEFAULT_SCOPE_KEY,
        redact_loggers: Iterable[str] = REDACTED_LOGGERS,
        priority: int = 1000,
        conflict_strategy: ConflictStrategy = ConflictStrategy.EXCLUSIVE,
    ) -> None:
        super().__init__()
        self.rules: list[CredentialRule] = []
        self.version = 0
        self.scope_key = scope_key
        self._remembered: dict[str, SecretStr] = {}
        self.redact_loggers = tuple(redact_loggers)
        self._filter = _RedactingFilter(self)
        for parameter, source in (credentials or {}).items():
            self.inject(parameter, source, tools=tools, when=when)
        self.adapter = AuthAdapter(self, priority, conflict_strategy)
        self.register_tool_adapter(self.adapter)

    async def install(self, agent: Any) -> None:
        """Install, and add the redacting filter to :attr:`redact_loggers`."""
        await super().install(agent)
        for name in self.redact_loggers:
            logging.getLogger(name).addFilter(self._filter)

    async def uninstall(self, agent: Any) -> None:
        """Uninstall, and remove the redacting filter."""
        for name in self.redact_loggers:
            logging.getLogger(name).removeFilter(self._filter)
        await super().uninstall(agent)

    @on(AgentEvents.TOOL_CALL_ERROR, priority=20_000)
    def _redact_error(self, ctx: EventContext) -> None:
        error = getattr(ctx.payload, "error", None)
        if isinstance(error, BaseException) and self._remembered:
            error.args = tuple(self.redact(a) if isinstance(a, str) else a for a in error.args)

    def _add(self, rule: CredentialRule) -> AuthInjector:
        if isinstance(rule.source, str):
            rule = CredentialRule(
                rule.parameter,
                SecretStr(rule.source),
                rule.header,
                rule.prefix,
                rule.tools,
                rule.when,
            )
        self.rules.append(rule)
        self.version += 1
        return self

    def inject(
        self,
        parameter: str,
        source: CredentialSource,
        *,
        tools: Iterable[str] | None = None,
        when: Callable[[Tool], bool] | None = None,
    ) -> AuthInjector:
        """Put ``source`` into ``parameter`` (an API key, a token...). Returns ``self``."""
        chosen = frozenset(tools) if tools is not None else None
        return self._add(CredentialRule(parameter, source, None, "", chosen, when))

    def api_key(
        self,
        source: CredentialSource,
        *,
        parameter: str = "api_key",
        tools: Iterable[str] | None = None,
        when: Callable[[Tool], bool] | None = None,
    ) -> AuthInjector:
        """Put an API key into ``parameter`` (default ``api_key``). Returns ``self``."""
        return self.inject(parameter, source, tools=tools, when=when)

    def header(
        self,
        name: str,
        source: CredentialSource,
        *,
        parameter: str = "headers",
        prefix: str = "",
        tools: Iterable[str] | None = None,
        when: Callable[[Tool], bool] | None = None,
    ) -> AuthInjector:
        """Put header ``name`` into the dict parameter ``parameter``. Returns ``self``."""
        chosen = frozenset(tools) if tools is not None else None
        return self._add(CredentialRule(parameter, source, name, prefix, chosen, when))

    def bearer(
        self,
        token: CredentialSource,
        *,
        parameter: str = "headers",
        header: str | None = "Authorization",
        tools: Iterable[str] | None = None,
        when: Callable[[Tool], bool] | None = None,
    ) -> AuthInjector:
        """A bearer token: ``Authorization: Bearer <token>`` in the dict parameter
        ``parameter``, or ``"Bearer <token>"`` itself when ``header`` is ``None``."""
        chosen = frozenset(tools) if tools is not None else None
        return self._add(CredentialRule(parameter, token, header, "Bearer ", chosen, when))

    @property
    def parameters(self) -> set[str]:
        """Every parameter name a credential may be injected into."""
        return {rule.parameter for rule in self.rules}

    def scope_of(self, tool_name: str, parameters: Mapping[str, Any]) -> str | None:
        """The auth scope of a call's unwrapped ``parameters``: a keyed hash of its
        credentials (never the secret), or ``None`` when it carries none."""
        return credential_scope(parameters, key=self.scope_key)

    def remember(self, secret: SecretStr) -> None:
        """Keep ``secret`` so it can be redacted from tool output (bounded)."""
        raw = secret.get_secret_value()
        if len(raw) < 4:
            return
        key = hashlib.sha256(raw.encode("utf-8")).hexdigest()
        self._remembered.pop(key, None)
        self._remembered[key] = secret
        while len(self._remembered) > _MAX_REMEMBERED:
            self._remembered.pop(next(iter(self._remembered)))

    def redact(self, text: str) -> str:
        """``text`` with every remembered secret replaced by ``[REDACTED]``."""
        for secret in list(self._remembered.values()):
            raw = secret.get_secret_value()
            if raw in text:
                text = text.replace(raw, REDACTED)
        return text

    def redact_response(self, response: ToolResponse) -> ToolResponse:
        """``response`` with remembered secrets redacted from its value and error."""
        if not self._remembered:
            return response
        update: dict[str, Any] = {}
        if response.error and self.redact(response.error) != response.error:
            update["error"] = self.redact(response.error)
        value = _redact_value(response.response, self.redact)
        if value is not response.response:
            update["response"] = value
        return response.model_copy(update=update) if update else response

    def __repr__(self) -> str:
        return f"AuthInjector(rules={self.rules!r})"


class _RedactingFilter(logging.Filter):
    """Redacts an injector's secrets from log records (message, arguments, traceback)."""

    def __init__(self, injector: AuthInjector) -> None:
        super().__init__()
        self.injector = injector

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.injector._remembered:
            return True
        message = record.getMessage()
        record.msg, record.args = self.injector.redact(message), None
        if record.exc_info:
            text = logging.Formatter().formatException(record.exc_info)
            record.exc_text = self.injector.redact(text)
            record.exc_info = None
        return True


def _redact_value(value: Any, redact: Callable[[str], str]) -> Any:
    """``value`` with strings redacted; the same object when nothing changed."""
    if isinstance(value, str):
        new = redact(value)
        return value if new == value else new
    if isinstance(value, dict):
        items = {k: _redact_value(v, redact) for k, v in value.items()}
        changed = any(items[k] is not value[k] for k in value)
        return items if changed else value
    if isinstance(value, list):
        listed = [_redact_value(v, redact) for v in value]
        changed = any(a is not b for a, b in zip(listed, value, strict=True))
        return listed if changed else value
    return value
