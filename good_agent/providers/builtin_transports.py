"""The HTTP transport and embedder of each registered provider name: views of the vendor
registry ([`good_agent.providers.registry`][good_agent.providers.registry]), kept for
imports written against them. Each vendor's descriptor is where they are said."""

from __future__ import annotations

from good_agent.http.http_transport import HttpTransport
from good_agent.providers.embeddings import Embedder
from good_agent.providers.registry import vendors

HTTP_TRANSPORTS: dict[str, type[HttpTransport]] = {
    name: http for vendor in vendors() for name, http in vendor.http_transports.items()
}
"""The HTTP transport of each built-in provider name (as registered at import)."""

EMBEDDERS: dict[str, type[Embedder]] = {
    name: embedder for vendor in vendors() for name, embedder in vendor.embedders.items()
}
"""The embedder of each built-in provider with an embeddings API (Anthropic has none)."""
