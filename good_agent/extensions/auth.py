"""The `AuthInjector`: credentials go into tool parameters the model never sees.

Default priority 1000 (the highest of the built-in extensions: its parameters are
filled in last, just before the call, and it redacts responses first), conflict
strategy ``EXCLUSIVE``: another adapter touching a credential parameter is an
`AdapterConflictError`, never a silent override. Rules and the
scope identifier live in `good_agent.extensions.credentials`.
"""

from __future__ import annotations

import contextlib
import logging
import weakref
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import SecretStr

from good_agent.adapters import CallContext, ConflictStrategy, ToolAdapter, ToolMemo
from good_agent.core.components import AgentComponent
from good_agent.core.redaction import SecretRegistry, agent_secrets
from good_agent.extensions.credentials import (
    CredentialRule,
    CredentialSource,
    configured_scope_key,
    credential_scope,
    resolve_credential,
    warn_if_unkeyed,
)
from good_agent.tools import Tool
from good_agent.types.errors import GoodAgentError, ToolError
from good_agent.types.messages import ToolResponse

_MAX_REMEMBERED = 64

REDACTED_LOGGERS = ("good_agent.tools", "good_agent.events")
"""Loggers an `AuthInjector` redacts its secrets from by default."""


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
        self._literals: dict[str, SecretStr] = {}
        self._chosen: ToolMemo[tuple[int, tuple[CredentialRule, ...]]] = ToolMemo()

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
        self._chosen.set(tool, (self.injector.version, result))
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

    def adapt_parameters(
        self,
        tool_name: str,
        parameters: dict[str, Any],
        agent: Any,
        ctx: CallContext | None = None,
    ) -> Any:
        """Resolve each credential and put it in place, as a `SecretStr`.

        Credentials given as text or `SecretStr` are put in place at once;
        one from a resolver makes this return an awaitable for the rest. A resolver
        taking the `RunContext` gets the call's ``ctx.run``.
        """
        rules = self._rules.get(tool_name, ())
        result = dict(parameters)
        for rule in rules:
            result.pop(rule.parameter, None)
        for position, rule in enumerate(rules):
            source = rule.source
            if isinstance(source, SecretStr):
                secret = source
            elif isinstance(source, str):
                secret = self._literal(source)
            else:
                return self._resolve_rest(tool_name, result, rules[position:], agent, ctx)
            self._put(rule, secret, result, agent)
        return result

    async def _resolve_rest(
        self,
        tool_name: str,
        result: dict[str, Any],
        rules: tuple[CredentialRule, ...],
        agent: Any,
        ctx: CallContext | None,
    ) -> dict[str, Any]:
        for rule in rules:
            source = rule.source
            try:
                secret = (
                    source
                    if isinstance(source, SecretStr)
                    else self._literal(source)
                    if isinstance(source, str)
                    else await resolve_credential(source, _run_for(rule, ctx))
                )
            except Exception as exc:
                raise ToolError(
                    f"credentials for tool '{tool_name}' could not be obtained "
                    f"({type(exc).__name__})"
                ) from exc
            self._put(rule, secret, result, agent)
        return result

    def _put(
        self, rule: CredentialRule, secret: SecretStr, result: dict[str, Any], agent: Any
    ) -> None:
        """Register ``secret`` and put it (prefixed, or in its header) in ``result``."""
        self.injector.remember(secret, agent)
        value = SecretStr(rule.prefix + secret.get_secret_value()) if rule.prefix else secret
        if rule.header is None:
            result[rule.parameter] = value
        else:
            headers = dict(result.get(rule.parameter) or {})
            headers[rule.header] = value
            result[rule.parameter] = headers

    def _literal(self, value: str) -> SecretStr:
        """The `SecretStr` of a credential given as plain text (made once)."""
        known = self._literals.get(value)
        if known is None:
            known = self._literals[value] = SecretStr(value)
        return known


def _run_for(rule: CredentialRule, ctx: CallContext | None) -> Any:
    """The run context a rule's provider takes (``None`` for one taking nothing)."""
    if not rule.takes_run:
        return None
    if ctx is None:
        raise GoodAgentError("this credential provider needs the run context, and none was given")
    return ctx.run


class AuthInjector(AgentComponent):
    """Injects credentials into selected tools' parameters; the model never sees them.

    Credentials are held as `SecretStr` and reach the tool as
    ``SecretStr`` (a header credential as a ``dict[str, SecretStr]`` entry): the tool
    calls ``get_secret_value()`` at the last moment. So event payloads, logs and cache
    keys only ever show ``'**********'``. Every injected value is registered with the
    agent's [`SecretRegistry`][good_agent.SecretRegistry]: wherever a tool echoes it in what it
    returns or raises (a nested container, a model, bytes, an exception's arguments,
    attributes or chain), it becomes ``[REDACTED]`` before anything else sees it.

    Args:
        credentials: ``{parameter: value or provider}`` applied to every tool that has
            that parameter (narrow it with ``tools`` / ``when``). A provider is a sync
            or async callable taking nothing, or the run's
            [`RunContext`][good_agent.RunContext] (``lambda ctx: ctx.deps.token``: a
            per-user credential from the run's deps).
        tools: Tool names the ``credentials`` apply to.
        when: A predicate selecting the tools the ``credentials`` apply to.
        scope_key: The deployment secret keying
            [`scope_of`][good_agent.AuthInjector.scope_of] (default:
            ``$GOOD_AGENT_SCOPE_KEY``, else a random key per process). Give every
            process that shares a cache store the same long random value.
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
        scope_key: bytes | str | None = None,
        redact_loggers: Iterable[str] = REDACTED_LOGGERS,
        priority: int = 1000,
        conflict_strategy: ConflictStrategy = ConflictStrategy.EXCLUSIVE,
    ) -> None:
        super().__init__()
        self.rules: list[CredentialRule] = []
        self.version = 0
        configured_scope_key(scope_key)  # a blank key is refused here, not at first use
        self.scope_key = scope_key
        self.secrets = SecretRegistry(limit=_MAX_REMEMBERED)
        self.redact_loggers = tuple(redact_loggers)
        self._filter = _RedactingFilter(self)
        for parameter, source in (credentials or {}).items():
            self.inject(parameter, source, tools=tools, when=when)
        self.adapter = AuthAdapter(self, priority, conflict_strategy)
        self.register_tool_adapter(self.adapter)

    async def install(self, agent: Any) -> None:
        """Install, add the redacting filter to
        [`redact_loggers`][good_agent.AuthInjector], and register
        the credentials given as values (providers' are registered when resolved)."""
        await super().install(agent)
        for rule in self.rules:
            if isinstance(rule.source, SecretStr):
                self.remember(rule.source, agent)
        for name in self.redact_loggers:
            logging.getLogger(name).addFilter(self._filter)

    async def uninstall(self, agent: Any) -> None:
        """Uninstall, and remove the redacting filter."""
        for name in self.redact_loggers:
            logging.getLogger(name).removeFilter(self._filter)
        await super().uninstall(agent)

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
        """The auth scope of a call's unwrapped ``parameters``: an HMAC of its
        credentials keyed by [`scope_key`][good_agent.AuthInjector] (never the secret), or
        ``None`` when it
        carries none."""
        return credential_scope(parameters, key=self.scope_key)

    def remember(self, secret: SecretStr, agent: Any = None) -> None:
        """Register ``secret`` with ``agent``'s [`SecretRegistry`][good_agent.SecretRegistry] (so
        nothing a tool returns or raises shows it) and with this injector's loggers'
        filter. Values under four characters are not registered."""
        self.secrets.add(secret)
        if agent is not None:
            agent_secrets(agent).add(secret)

    def redact(self, text: str) -> str:
        """``text`` with every injected secret replaced by ``[REDACTED]``."""
        return self.secrets.redact_text(text)

    def redact_response(self, response: ToolResponse) -> ToolResponse:
        """``response`` with this injector's secrets redacted from its value and error
        (a tool's own output is already redacted by the agent; this is for responses
        from elsewhere, such as a cache entry written before a secret was known)."""
        if not self.secrets:
            return response
        update: dict[str, Any] = {}
        if response.error and self.secrets.contains_secret(response.error):
            update["error"] = self.secrets.redact_text(response.error)
        value = self.secrets.redact(response.response)
        if value is not response.response:
            update["response"] = value
        return response.model_copy(update=update) if update else response

    def __repr__(self) -> str:
        return f"AuthInjector(rules={self.rules!r})"


_WARNED_STORES: weakref.WeakSet[Any] = weakref.WeakSet()
"""Stores already warned about, so every cache on one store warns once in all (a cache
is often built per agent or per request). Weak: it holds no store alive and decides
nothing; a store that cannot be weakly referenced is left to the ``warnings`` filter."""


def _warned(store: object) -> bool:
    try:
        return store in _WARNED_STORES
    except TypeError:
        return False


def cache_scope(
    agent: Any, tool_name: str, parameters: Mapping[str, Any], store: object
) -> str | None:
    """The auth scope a cache puts in the key of a call to ``store``: the installed
    `AuthInjector`'s `scope_of`, else `credential_scope`.

    Warns once per store when credential-scoped entries go to a shared store (SQLite,
    Redis) without a configured deployment scope key.
    """
    key: bytes | str | None = None
    for component in getattr(agent, "components", ()):
        if isinstance(component, AuthInjector):
            scope, key = component.scope_of(tool_name, parameters), component.scope_key
            break
    else:
        scope = credential_scope(parameters)
    if scope is not None and not _warned(store) and warn_if_unkeyed(store, key):
        with contextlib.suppress(TypeError):  # a store that cannot be weakly referenced
            _WARNED_STORES.add(store)
    return scope


class _RedactingFilter(logging.Filter):
    """Redacts an injector's secrets from log records (message, arguments, traceback)."""

    def __init__(self, injector: AuthInjector) -> None:
        super().__init__()
        self.injector = injector

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.injector.secrets:
            return True
        message = record.getMessage()
        record.msg, record.args = self.injector.redact(message), None
        if record.exc_info:
            text = logging.Formatter().formatException(record.exc_info)
            record.exc_text = self.injector.redact(text)
            record.exc_info = None
        return True
