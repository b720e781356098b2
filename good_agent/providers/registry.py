"""The one registry of vendors: the built-ins and
[`register_provider`][good_agent.register_provider]'s.

Each built-in vendor is one folder, ``providers/<vendor>/``, whose ``__init__.py``
exports its [`Vendor`][good_agent.providers.vendor.Vendor] descriptor as ``VENDOR``;
`BUILTIN_VENDORS` lists them, one name each. A vendor of one's own is the same: a folder
(or module) with its ``VENDOR`` and one `register_vendor` call.

A built-in vendor's folder is imported the first time that vendor is asked for (its
provider prefix, one of its codecs, or every vendor): resolving ``openai:gpt-4o``
loads ``providers/openai/`` and no other vendor. Its profile rules (``profile.py`` in
its folder) are read without the rest of the folder (`builtin_profiles`).

The tables the package used to keep apart are views of this registry: the codec of a
name (`get_codec`), the vendor serving a provider prefix (`vendor_of`), its HTTP
transport, SDK transport, embedder, profile rules and the host its key may go to.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from types import ModuleType
from typing import TYPE_CHECKING

from good_agent.providers.vendor import Codec, TransportFactory, Vendor

if TYPE_CHECKING:
    from good_agent.http.http_transport import HttpTransport
    from good_agent.providers.embeddings import Embedder

BUILTIN_VENDORS = ("anthropic", "gemini", "openai", "ollama")
"""The built-in vendors, one folder each (``providers/<name>/``), in registration order."""

_VENDORS: dict[str, Vendor] = {}
"""Every registered vendor, by its name, in the order registered."""
_BY_PROVIDER: dict[str, Vendor] = {}
"""The vendor of each provider prefix."""
_CODECS: dict[str, Codec] = {}
"""Every registered codec, by its name."""


def builtin_profiles() -> list[ModuleType]:
    """The ``profile`` module of each built-in vendor (its provider prefixes, aliases and
    profile rules), in registration order, without its codecs and transports."""
    return [importlib.import_module(f"{__package__}.{name}.profile") for name in BUILTIN_VENDORS]


def _load_builtin(name: str) -> None:
    """Import built-in vendor ``name``'s folder and register it, unless a vendor of that
    name is registered already (loaded before, or replaced by the caller)."""
    if name not in _VENDORS:
        _register(importlib.import_module(f"{__package__}.{name}").VENDOR)


def _load_builtins() -> None:
    """Register every built-in vendor not yet loaded."""
    for name in BUILTIN_VENDORS:
        _load_builtin(name)


def _load_serving(provider: str | None = None, codec: str | None = None) -> None:
    """Load the built-in vendor serving provider prefix ``provider`` or codec ``codec``
    (from its profile alone), if it is not loaded yet."""
    for name, profile in zip(BUILTIN_VENDORS, builtin_profiles(), strict=True):
        if name in _VENDORS:
            continue
        if provider in profile.PROVIDERS or any(
            info.codec == codec for info in profile.PROVIDERS.values()
        ):
            _load_builtin(name)


def register_vendor(vendor: Vendor) -> None:
    """Add ``vendor`` (or replace the one of the same name): its provider prefixes and
    codecs become known. Its profile rules reach profile registries made after this;
    [`register_provider`][good_agent.register_provider] also adds them to a given one."""
    for name in vendor.providers:
        _load_serving(provider=name)
    for codec in vendor.codecs:
        _load_serving(codec=codec.name)
    _register(vendor)


def _register(vendor: Vendor) -> None:
    """Add ``vendor``: the work of `register_vendor`, without loading built-ins first."""
    old = _VENDORS.pop(vendor.name, None)
    if old is not None:
        for name in old.providers:
            _BY_PROVIDER.pop(name, None)
    _VENDORS[vendor.name] = vendor
    for name in vendor.providers:
        _BY_PROVIDER[name] = vendor
    for codec in vendor.codecs:
        _CODECS[codec.name] = codec


def vendors() -> Iterator[Vendor]:
    """Every registered vendor: the built-ins (all loaded by this call) in their order,
    then the others in the order registered."""
    _load_builtins()
    builtin = [_VENDORS[name] for name in BUILTIN_VENDORS if name in _VENDORS]
    return iter(builtin + [v for name, v in _VENDORS.items() if name not in BUILTIN_VENDORS])


def vendor_of(provider: str) -> Vendor | None:
    """The vendor serving provider prefix ``provider``, if one is registered."""
    if provider not in _BY_PROVIDER:
        _load_serving(provider=provider)
    return _BY_PROVIDER.get(provider)


def provider_names() -> list[str]:
    """Every registered provider prefix."""
    _load_builtins()
    return sorted(_BY_PROVIDER)


def http_transport_of(provider: str) -> type[HttpTransport] | None:
    """The HTTP transport class of provider prefix ``provider``, if it has one."""
    vendor = vendor_of(provider)
    return None if vendor is None else vendor.http_transports.get(provider)


def transport_factory_of(provider: str) -> TransportFactory | None:
    """The transport factory a vendor registered for ``provider`` (one without an HTTP
    transport class: [`register_provider`][good_agent.register_provider]'s)."""
    vendor = vendor_of(provider)
    return None if vendor is None else vendor.transports.get(provider)


def embedder_of(provider: str) -> type[Embedder] | None:
    """The embedder of provider prefix ``provider``, if it has an embeddings API."""
    vendor = vendor_of(provider)
    return None if vendor is None else vendor.embedders.get(provider)


def embedding_providers() -> list[str]:
    """Every registered provider prefix with an embeddings API."""
    _load_builtins()
    return sorted(name for name in _BY_PROVIDER if embedder_of(name) is not None)


def get_codec(name: str) -> Codec:
    """The codec registered under ``name``; `KeyError` names the known ones."""
    if name not in _CODECS:
        _load_serving(codec=name)
    if name not in _CODECS:
        _load_builtins()
    try:
        return _CODECS[name]
    except KeyError:
        known = ", ".join(sorted(_CODECS))
        raise KeyError(f"unknown codec '{name}'; known codecs: {known}") from None


def register_codec(codec: Codec) -> None:
    """Add or replace a codec (one no vendor lists, for a provider registered by name)."""
    _load_serving(codec=codec.name)
    _CODECS[codec.name] = codec


def codec_names() -> list[str]:
    """The names of every registered codec."""
    _load_builtins()
    return sorted(_CODECS)


def vendor_hosts() -> dict[str, str]:
    """The host of each provider's own API (where its environment key may go)."""
    return {
        name: host
        for vendor in vendors()
        for name in vendor.providers
        if (host := vendor.host(name)) is not None
    }


