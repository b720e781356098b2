"""The one registry of vendors: the built-ins and
[`register_provider`][good_agent.register_provider]'s.

Each built-in vendor is one folder, ``providers/<vendor>/``, whose ``__init__.py``
exports its [`Vendor`][good_agent.providers.vendor.Vendor] descriptor as ``VENDOR``; the
last lines of this module register them, one line each. A vendor of one's own is the same:
a folder (or module) with its ``VENDOR`` and one `register_vendor` call.

The tables the package used to keep apart are views of this registry: the codec of a
name (`get_codec`), the vendor serving a provider prefix (`vendor_of`), its HTTP
transport, SDK transport, embedder, profile rules and the host its key may go to.
"""

from __future__ import annotations

from collections.abc import Iterator

from good_agent.http.http_transport import HttpTransport
from good_agent.providers.embeddings import Embedder
from good_agent.providers.vendor import Codec, TransportFactory, Vendor

_VENDORS: dict[str, Vendor] = {}
"""Every registered vendor, by its name, in the order registered."""
_BY_PROVIDER: dict[str, Vendor] = {}
"""The vendor of each provider prefix."""
_CODECS: dict[str, Codec] = {}
"""Every registered codec, by its name."""


def register_vendor(vendor: Vendor) -> None:
    """Add ``vendor`` (or replace the one of the same name): its provider prefixes and
    codecs become known. Its profile rules reach profile registries made after this;
    [`register_provider`][good_agent.register_provider] also adds them to a given one."""
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
    """Every registered vendor, in the order registered."""
    return iter(list(_VENDORS.values()))


def vendor_of(provider: str) -> Vendor | None:
    """The vendor serving provider prefix ``provider``, if one is registered."""
    return _BY_PROVIDER.get(provider)


def provider_names() -> list[str]:
    """Every registered provider prefix."""
    return sorted(_BY_PROVIDER)


def http_transport_of(provider: str) -> type[HttpTransport] | None:
    """The HTTP transport class of provider prefix ``provider``, if it has one."""
    vendor = _BY_PROVIDER.get(provider)
    return None if vendor is None else vendor.http_transports.get(provider)


def transport_factory_of(provider: str) -> TransportFactory | None:
    """The transport factory a vendor registered for ``provider`` (one without an HTTP
    transport class: [`register_provider`][good_agent.register_provider]'s)."""
    vendor = _BY_PROVIDER.get(provider)
    return None if vendor is None else vendor.transports.get(provider)


def embedder_of(provider: str) -> type[Embedder] | None:
    """The embedder of provider prefix ``provider``, if it has an embeddings API."""
    vendor = _BY_PROVIDER.get(provider)
    return None if vendor is None else vendor.embedders.get(provider)


def embedding_providers() -> list[str]:
    """Every registered provider prefix with an embeddings API."""
    return sorted(name for name in _BY_PROVIDER if embedder_of(name) is not None)


def get_codec(name: str) -> Codec:
    """The codec registered under ``name``; `KeyError` names the known ones."""
    try:
        return _CODECS[name]
    except KeyError:
        known = ", ".join(sorted(_CODECS))
        raise KeyError(f"unknown codec '{name}'; known codecs: {known}") from None


def register_codec(codec: Codec) -> None:
    """Add or replace a codec (one no vendor lists, for a provider registered by name)."""
    _CODECS[codec.name] = codec


def codec_names() -> list[str]:
    """The names of every registered codec."""
    return sorted(_CODECS)


def vendor_hosts() -> dict[str, str]:
    """The host of each provider's own API (where its environment key may go)."""
    return {
        name: host
        for vendor in vendors()
        for name in vendor.providers
        if (host := vendor.host(name)) is not None
    }


# The built-in vendors: one folder and one line each.
from good_agent.providers import anthropic, gemini, ollama, openai  # noqa: E402

register_vendor(anthropic.VENDOR)
register_vendor(gemini.VENDOR)
register_vendor(openai.VENDOR)
register_vendor(ollama.VENDOR)
