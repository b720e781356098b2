"""Secrets an agent must never show, and their removal from tool output and errors.

Every agent has a `SecretRegistry` (`agent_secrets`). Whatever a tool
returns or raises passes through it before anything else sees it (the adapter chain,
event handlers at any priority, logs, the cache, the history, the model, and the
caller when ``tool_errors="raise"``). Extensions that hand secrets to tools (the
`AuthInjector`) add them; an application may add its own.

A registered secret is searched for as text and as UTF-8 bytes, in every string,
bytes value, dict key, container item, pydantic model field, dataclass field and
exception (its arguments, its attributes such as an ``OSError`` filename, its notes,
its chained ``__cause__`` / ``__context__``, and its own ``__str__`` / ``__repr__``).
Each occurrence becomes ``[REDACTED]``. Values without a secret are returned as the
very same objects.
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
import traceback
import weakref
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, SecretBytes, SecretStr

from good_agent._util.by_identity import ByIdentity
from good_agent.types.errors import GoodAgentError

REDACTED = "[REDACTED]"
"""What each occurrence of a secret is replaced with."""

MIN_SECRET_LENGTH = 4
"""Shorter values are not registered: replacing them would garble ordinary text."""

_ERROR_ATTRIBUTES = (
    "filename",
    "filename2",
    "strerror",
    "object",
    "reason",
    "msg",
    "text",
    "name",
    "path",
    "obj",
    "value",
    "code",
)
"""Attributes of built-in exceptions that may hold a value (``OSError.filename``...)."""


_NUMBERS = (int, float, complex)
_NUMBER_CHARACTERS = frozenset("0123456789.-+eE()jinfaINFA")


class RedactedError(GoodAgentError):
    """Stands in for an exception whose text still showed a secret after redaction
    (an ``__str__`` that rebuilds it from hidden state); its message is the redacted
    ``"<type>: <text>"`` of the original, which is not kept."""


class SecretRegistry:
    """The secret values one agent must never show (the most recent ``limit``).

    Args:
        limit: How many distinct secrets are kept; older ones are forgotten first
            (rotating tokens would otherwise grow the registry forever).
    """

    def __init__(self, limit: int = 256) -> None:
        self.limit = limit
        self._secrets: OrderedDict[str, SecretStr] = OrderedDict()
        self._patterns: tuple[tuple[str, bytes], ...] = ()
        self._newest: str | None = None
        self.numeric = False
        """Whether a secret could show in a number's text (then numbers are checked)."""

    def add(self, secret: str | SecretStr) -> None:
        """Register ``secret`` (ignored below `MIN_SECRET_LENGTH` characters)."""
        raw = secret.get_secret_value() if isinstance(secret, SecretStr) else secret
        if len(raw) < MIN_SECRET_LENGTH or raw == self._newest:
            return  # too short, or already the most recent: nothing changes
        key = hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()
        known = key in self._secrets
        self._secrets.pop(key, None)
        self._secrets[key] = SecretStr(raw)
        self._newest = raw
        while len(self._secrets) > self.limit:
            self._secrets.popitem(last=False)
            known = False
        if not known:
            values = sorted((s.get_secret_value() for s in self._secrets.values()), key=len)
            self._patterns = tuple(
                (raw, raw.encode("utf-8", "surrogatepass")) for raw in reversed(values)
            )
            self.numeric = any(set(raw) <= _NUMBER_CHARACTERS for raw in values)

    def __len__(self) -> int:
        return len(self._secrets)

    def __bool__(self) -> bool:
        return bool(self._secrets)

    def __repr__(self) -> str:
        return f"SecretRegistry({len(self)} secrets)"

    def contains_secret(self, text: str) -> bool:
        """Whether ``text`` shows any registered secret."""
        return any(raw in text for raw, _ in self._patterns)

    def redact_text(self, text: str) -> str:
        """``text`` with every registered secret replaced by ``[REDACTED]``."""
        for raw, _ in self._patterns:
            if raw in text:
                text = text.replace(raw, REDACTED)
        return text

    def redact_bytes(self, data: bytes) -> bytes:
        """``data`` with every registered secret (UTF-8) replaced by ``b"[REDACTED]"``."""
        for _, raw in self._patterns:
            if raw in data:
                data = data.replace(raw, REDACTED.encode())
        return data

    def redact(self, value: Any) -> Any:
        """``value`` with every secret redacted, at any depth; the same object when
        it holds none. Containers, models and dataclasses are copied, not changed."""
        if not self._patterns:
            return value
        if type(value) is str:  # the usual tool result: no pass to set up
            new = self.redact_text(value)
            return value if new == value else new
        return _Redactor(self).value(value)

    def redact_error(self, error: BaseException) -> BaseException:
        """``error`` and its chain with every secret redacted, in place where possible.

        Returns ``error`` itself, or a [`RedactedError`][good_agent.RedactedError] standing in for
        it when
        its text could not be cleaned in place.
        """
        if not self._patterns:
            return error
        redactor = _Redactor(self)
        cleaned = redactor.error(error)
        if self.contains_secret("".join(traceback.format_exception(cleaned))):
            # Something unforeseen still shows it: keep only the redacted text.
            text = self.redact_text(traceback.format_exception_only(cleaned)[-1].strip())
            return RedactedError(text)
        return cleaned


class _Redactor:
    """One redaction pass (remembers containers in progress, so cycles end)."""

    def __init__(self, registry: SecretRegistry) -> None:
        self.registry = registry
        self.active: set[int] = set()
        self.errors: dict[int, BaseException] = {}

    def value(self, value: Any) -> Any:
        kind = type(value)
        if kind is str:
            new = self.registry.redact_text(value)
            return value if new == value else new
        if kind in _NUMBERS:
            return self._other(value) if self.registry.numeric else value
        if value is None or isinstance(value, bool | SecretStr | SecretBytes):
            return value
        if isinstance(value, str):
            new = self.registry.redact_text(value)
            return value if new == value else new
        if isinstance(value, bytes | bytearray | memoryview):
            data = bytes(value)
            new_bytes = self.registry.redact_bytes(data)
            if new_bytes == data:
                return value
            return bytearray(new_bytes) if isinstance(value, bytearray) else new_bytes
        if isinstance(value, BaseException):
            return self.error(value)
        if id(value) in self.active:
            return value
        self.active.add(id(value))
        try:
            return self._composite(value)
        finally:
            self.active.discard(id(value))

    def _composite(self, value: Any) -> Any:
        kind = type(value)
        if kind is dict:
            return self._mapping(value)
        if kind in (list, tuple):
            return self._collection(value)
        if isinstance(value, BaseModel):
            return self._model(value)
        if isinstance(value, Mapping):
            return self._mapping(value)
        if isinstance(value, list | tuple | set | frozenset):
            return self._collection(value)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return self._dataclass(value)
        return self._other(value)

    def _mapping(self, value: Mapping[Any, Any]) -> Any:
        items: list[tuple[Any, Any]] = []
        changed = False
        for key, item in value.items():
            new_key, new_item = self.value(key), self.value(item)
            changed = changed or new_key is not key or new_item is not item
            items.append((new_key, new_item))
        if not changed:
            return value
        result: dict[Any, Any] = {}
        for key, item in items:
            unique, n = key, 2
            while unique in result:  # two keys that differed only by a secret
                unique, n = f"{key}#{n}", n + 1
            result[unique] = item
        if type(value) is not dict and isinstance(value, dict):
            try:
                copied = value.copy()
                copied.clear()
                copied.update(result)
                return copied
            except (TypeError, AttributeError):
                return result
        return result

    def _collection(self, value: Any) -> Any:
        items = [self.value(item) for item in value]
        if all(new is old for new, old in zip(items, value, strict=True)):
            return value
        kind = type(value)
        if isinstance(value, tuple) and hasattr(kind, "_make"):
            return kind._make(items)
        if kind in (list, tuple, set, frozenset):
            return kind(items)
        try:
            return kind(items)
        except TypeError:
            base = next(b for b in (list, tuple, set, frozenset) if isinstance(value, b))
            return base(items)

    def _model(self, value: BaseModel) -> Any:
        update: dict[str, Any] = {}
        for name, current in vars(value).items():  # a model's field values
            new = self.value(current)
            if new is not current:
                update[name] = new
        extra = value.__pydantic_extra__ or {}
        for name, current in extra.items():
            new = self.value(current)
            if new is not current:
                update[name] = new
        return value.model_copy(update=update) if update else value

    def _dataclass(self, value: Any) -> Any:
        update: dict[str, Any] = {}
        for field in dataclasses.fields(value):
            current = getattr(value, field.name, None)
            new = self.value(current)
            if new is not current:
                update[field.name] = new
        if not update:
            return value
        try:
            return dataclasses.replace(value, **update)
        except (TypeError, ValueError):
            copied = value.__class__.__new__(value.__class__)
            for field in dataclasses.fields(value):
                new = update.get(field.name, getattr(value, field.name))
                object.__setattr__(copied, field.name, new)
            return copied

    def _other(self, value: Any) -> Any:
        """Numbers and other objects: replaced by their redacted text only when that
        text (``str`` or ``repr``, what a renderer would show) shows a secret."""
        text = str(value)
        if self.registry.contains_secret(text) or self.registry.contains_secret(repr(value)):
            return self.registry.redact_text(text)
        return value

    def error(self, error: BaseException) -> BaseException:
        done = self.errors.get(id(error))
        if done is not None:
            return done
        self.errors[id(error)] = error
        self._clean_in_place(error)
        result = self._hide_text(error)
        self.errors[id(error)] = result
        return result

    def _clean_in_place(self, error: BaseException) -> None:
        args = self.value(error.args)
        if args is not error.args:
            error.args = args
        for name in _ERROR_ATTRIBUTES:
            current = getattr(error, name, None)
            if current is None:
                continue
            new = self.value(current)
            if new is not current:
                try:
                    setattr(error, name, new)
                except (AttributeError, TypeError):
                    # Read-only here: the text check below replaces the error if needed.
                    continue
        state = vars(error)
        for name, current in list(state.items()):
            if name.startswith("__") and name != "__notes__":
                continue
            new = self.value(current)
            if new is not current:
                state[name] = new
        for link in ("__cause__", "__context__"):
            linked = getattr(error, link)
            if linked is not None:
                setattr(error, link, self.error(linked))
        if isinstance(error, BaseExceptionGroup):
            for member in error.exceptions:
                self.error(member)

    def _hide_text(self, error: BaseException) -> BaseException:
        """Make ``str`` / ``repr`` of ``error`` safe: swap in a subclass that shows the
        redacted text, or stand a `RedactedError` in for it."""
        shown, represented = _text(str, error), _text(repr, error)
        registry = self.registry
        if not (registry.contains_secret(shown) or registry.contains_secret(represented)):
            return error
        vars(error)["_redacted_text"] = (
            registry.redact_text(shown),
            registry.redact_text(represented),
        )
        try:
            error.__class__ = _redacting_subclass(type(error))
        except TypeError:
            stand_in = RedactedError(f"{type(error).__name__}: {registry.redact_text(shown)}")
            stand_in.__cause__, stand_in.__context__ = error.__cause__, error.__context__
            stand_in.__suppress_context__ = error.__suppress_context__
            return stand_in.with_traceback(error.__traceback__)
        return error


def _text(render: Any, error: BaseException) -> str:
    try:
        return str(render(error))
    except Exception as exc:  # an __str__ that fails: what Python itself would show
        return f"<exception str() failed: {type(exc).__name__}>"


_SUBCLASSES: weakref.WeakKeyDictionary[type, type] = weakref.WeakKeyDictionary()


def _redacting_subclass(cls: type[BaseException]) -> type[BaseException]:
    """A subclass of ``cls`` (same name) whose ``str`` / ``repr`` are the redacted texts."""
    if getattr(cls, "__redacting__", False):
        return cls
    known = _SUBCLASSES.get(cls)
    if known is not None:
        return known

    def __str__(self: BaseException) -> str:
        return str(vars(self)["_redacted_text"][0])

    def __repr__(self: BaseException) -> str:
        return str(vars(self)["_redacted_text"][1])

    namespace = {
        "__str__": __str__,
        "__repr__": __repr__,
        "__slots__": (),
        "__redacting__": True,
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
        "__doc__": cls.__doc__,
    }
    subclass = type(cls.__name__, (cls,), namespace)
    _SUBCLASSES[cls] = subclass
    return subclass


_REGISTRIES: ByIdentity[Any, SecretRegistry] = ByIdentity()
_CREATING = threading.Lock()


def agent_secrets(agent: Any) -> SecretRegistry:
    """The [`SecretRegistry`][good_agent.SecretRegistry] of ``agent`` (created on first use)."""
    registry = _REGISTRIES.get(agent)
    if registry is None:
        with _CREATING:  # two threads asking first must not get two registries
            registry = _REGISTRIES.get(agent)
            if registry is None:  # (an empty registry is falsy: compare with None)
                registry = _REGISTRIES.set(agent, SecretRegistry())
    return registry
