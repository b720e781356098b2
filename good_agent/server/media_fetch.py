"""Media URLs the bridge fetches itself, for an upstream that needs the bytes.

A client may send an image, a document or audio by URL. An upstream whose API
takes that URL gets it as it is. One that needs inline data (Ollama; OpenAI Chat
for documents and audio) gets a 400 saying so, unless the URL's host is one of
``server.fetch_media_hosts``: then the bridge fetches it and sends the bytes.
Which upstream needs the bytes is the upstream codec's word: the part is encoded
alone by URL and inline, and fetched only when the codec refuses the URL form
and takes the inline one.

A fetch is refused (a 400 naming the part) unless the URL is ``https``, its host
is listed, and **every** address the host name resolves to (or is pinned to by
``fetch_media_resolve``) is public: no request leaves for a loopback, private or
link-local address because of a client's URL. The connection goes to the checked
address (the TLS name is still the host's), so a second lookup cannot change it.
Redirects (at most `MAX_REDIRECTS`) are followed only to URLs that pass the
same checks. The body is read up to ``max_media_part_bytes`` (a 413 beyond), its
first bytes must match its media type, and the request's media, fetched ones
included, must stay within ``max_media_request_bytes``. Each URL is fetched once
per request, whichever fallback routes are tried.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import socket
import ssl
from functools import partial
from urllib.parse import urljoin, urlsplit

import anyio
import httpx2

from good_agent.providers.parts import MediaPart, read_part
from good_agent.providers.types import ChatRequest, JSONDict
from good_agent.server.common.errors import BridgeError, bad_request
from good_agent.server.common.request_body import read_at_most
from good_agent.server.config import ServerConfig
from good_agent.server.media import (
    FetchHosts,
    MediaLimits,
    matches_media_type,
    media_parts,
    too_large,
)
from good_agent.server.served import BridgeRequest, ServedModel, StreamBatch
from good_agent.server.streams import Batches, prime
from good_agent.types.content import MEDIA_KEY, BinaryContent, guess_media_type, kind_of_media
from good_agent.types.errors import ModelCapabilityError
from good_agent.types.messages import MEDIA_RESULT_KEY, ModelResponse

MAX_REDIRECTS = 3
"""How many redirects a fetch follows (each checked like the first URL)."""

_Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def fetch_failed(message: str, where: str) -> BridgeError:
    """The 400 for a URL the bridge would not or could not fetch."""
    return bad_request(f"{where}: {message}", where, "media_fetch_failed")


def decoded_size(data: str) -> int:
    """The number of bytes ``data`` (padded base64) decodes to."""
    return len(data) * 3 // 4 - (len(data) - len(data.rstrip("=")))


class MediaFetcher:
    """Fetches media URLs under the server's rules (see the module docs).

    Args:
        server: The server table (hosts, pinned addresses, time limit, the unsafe flag).
        limits: The media size limits.
        verify: How servers' certificates are checked (``httpx2``'s ``verify``: the
            system's trusted authorities by default).
    """

    def __init__(
        self, server: ServerConfig, limits: MediaLimits, *, verify: ssl.SSLContext | bool = True
    ) -> None:
        self.hosts = FetchHosts(server.fetch_media_hosts, server.allow_private_fetch)
        self.pinned = {
            host.lower(): tuple(addresses) for host, addresses in server.fetch_media_resolve.items()
        }
        self.timeout = server.fetch_media_timeout
        self.limits = limits
        self.verify = verify
        self._client: httpx2.AsyncClient | None = None

    async def aclose(self) -> None:
        """Close the fetch connections."""
        if self._client is not None:
            await self._client.aclose()

    def media_of(self, request: BridgeRequest) -> RequestMedia:
        """The media URLs of ``request``, to fetch for each route tried."""
        return RequestMedia(self, request)

    async def addresses(self, host: str, port: int, where: str) -> list[_Address]:
        """The addresses ``host`` resolves to (or is pinned to), all of them public
        unless ``allow_private_fetch`` is set; a 400 otherwise."""
        pinned = self.pinned.get(host.lower().rstrip("."))
        if pinned is not None:
            found: list[_Address] = list(pinned)
        else:
            try:
                infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            except OSError:
                raise fetch_failed(f"the URL's host {host!r} does not resolve", where) from None
            found = [ipaddress.ip_address(str(info[4][0]).partition("%")[0]) for info in infos]
        if not found:
            raise fetch_failed(f"the URL's host {host!r} does not resolve", where)
        if not self.hosts.allow_private:
            for address in found:
                mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
                if not (mapped or address).is_global:
                    raise fetch_failed(
                        f"the URL's host {host!r} resolves to {address}, not a public "
                        "address; send the bytes instead",
                        where,
                    )
        return found

    def _checked(self, url: str, where: str) -> tuple[str, int]:
        parts = urlsplit(url)
        host = parts.hostname
        if not host or not self.hosts.allows(host):
            raise fetch_failed(
                f"the bridge fetches no URL from {host!r} (not in server.fetch_media_hosts)",
                where,
            )
        secure = parts.scheme == "https"
        if not secure and not (parts.scheme == "http" and self.hosts.allow_private):
            raise fetch_failed("the bridge fetches https URLs only", where)
        try:
            port = parts.port or (443 if secure else 80)
        except ValueError:
            raise fetch_failed("the URL's port is not a number", where) from None
        return host, port

    def _client_for_fetches(self) -> httpx2.AsyncClient:
        if self._client is None:
            # No connection is kept: one to an address is bound to the TLS name of the
            # host it was opened for, and another listed host may share the address.
            self._client = httpx2.AsyncClient(
                trust_env=False,
                follow_redirects=False,
                timeout=self.timeout,
                verify=self.verify,
                limits=httpx2.Limits(max_keepalive_connections=0),
            )
        return self._client

    async def _get(self, url: str, where: str) -> tuple[bytes, str | None]:
        """The body and content type at ``url``, redirects followed and checked."""
        client = self._client_for_fetches()
        for _ in range(MAX_REDIRECTS + 1):
            host, port = self._checked(url, where)
            address = (await self.addresses(host, port, where))[0]
            target = httpx2.URL(url).copy_with(host=str(address))
            netloc = urlsplit(url).netloc.rpartition("@")[2]
            extensions = {"sni_hostname": host} if target.scheme == "https" else {}
            async with client.stream(
                "GET", target, headers={"host": netloc}, extensions=extensions
            ) as response:
                if response.is_redirect and response.headers.get("location"):
                    url = urljoin(url, response.headers["location"])
                    continue
                if response.status_code != 200:
                    raise fetch_failed(
                        f"fetching {url} answered HTTP {response.status_code}", where
                    )
                return await self._body(response, where), response.headers.get("content-type")
        raise fetch_failed(f"fetching the URL redirected more than {MAX_REDIRECTS} times", where)

    async def _body(self, response: httpx2.Response, where: str) -> bytes:
        limit = self.limits.part_bytes
        message = f"{where}: the fetched part is over the limit max_media_part_bytes = {limit}"
        declared = response.headers.get("content-length")
        over = partial(too_large, message, where)
        return await read_at_most(response.aiter_bytes(), declared, limit, over)

    async def fetch(self, part: JSONDict, media: MediaPart, where: str) -> JSONDict:
        """``part`` (a URL part) as an inline part holding the bytes at its URL."""
        url = media.url or ""
        try:
            with anyio.fail_after(self.timeout):
                data, content_type = await self._get(url, where)
        except TimeoutError:
            raise fetch_failed(f"fetching {url} took over {self.timeout:g} s", where) from None
        except httpx2.HTTPError as exc:
            raise fetch_failed(f"fetching {url} failed: {type(exc).__name__}", where) from None
        served = (content_type or "").partition(";")[0].strip().lower()
        declared = part.get(MEDIA_KEY)
        if isinstance(declared, str):
            media_type = declared
        elif served and kind_of_media(served) == media.kind:
            media_type = served
        else:
            media_type = guess_media_type(url, media.media_type)
        if kind_of_media(media_type) != media.kind or not matches_media_type(data, media_type):
            raise bad_request(
                f"{where}: the bytes fetched from {url} are not {media_type} as expected", where
            )
        return BinaryContent(data, media_type).to_openai()


def needs_inline(route: ServedModel, part: JSONDict, media: MediaPart) -> bool:
    """Whether ``route``'s upstream refuses ``part`` (``media`` by URL) but would
    take the same media inline."""
    codec = route.model.tool_strategy.codec

    def encodes(candidate: JSONDict) -> bool:
        request = ChatRequest([{"role": "user", "content": [candidate]}])
        try:
            codec.encode_request(route.entry.model, request)
        except ModelCapabilityError:
            return False
        return True

    return not encodes(part) and encodes(BinaryContent(b"\0", media.media_type).to_openai())


class RequestMedia:
    """The media URLs of one request, fetched (once each) for the routes that need
    the bytes."""

    def __init__(self, fetcher: MediaFetcher, request: BridgeRequest) -> None:
        self.fetcher = fetcher
        self.request = request
        self._fetched: dict[str, JSONDict] = {}

    async def complete(self, route: ServedModel) -> ModelResponse:
        """``route``'s whole reply to the request (URLs fetched as it needs)."""
        return await route.complete(await self.for_route(route))

    async def prime(self, route: ServedModel) -> tuple[Batches, list[StreamBatch]]:
        """``route``'s stream of the request, started (see `prime`)."""
        return await prime(route, await self.for_route(route))

    def _fetchable(self) -> list[tuple[str, JSONDict, MediaPart]]:
        found = []
        for where, part in media_parts(self.request.messages):
            media = read_part(part)
            host = urlsplit(media.url).hostname if media and media.url else None
            if media is not None and host and self.fetcher.hosts.allows(host):
                found.append((where, part, media))
        return found

    async def for_route(self, route: ServedModel) -> BridgeRequest:
        """The request as ``route`` gets it: URLs its upstream cannot take, from
        allowed hosts, replaced by the fetched bytes."""
        if not self.fetcher.hosts.hosts:
            return self.request
        swaps: dict[int, JSONDict] = {}
        for where, part, media in self._fetchable():
            if not needs_inline(route, part, media):
                continue
            url = media.url or ""
            if url not in self._fetched:
                self._fetched[url] = await self.fetcher.fetch(part, media, where)
            swaps[id(part)] = self._fetched[url]
        if not swaps:
            return self.request
        messages = [_swapped(message, swaps) for message in self.request.messages]
        total = 0
        for where, item in media_parts(messages):
            inline = read_part(item)
            total += decoded_size(inline.data) if inline and inline.data else 0
            if total > self.fetcher.limits.request_bytes:
                raise too_large(
                    f"{where}: the media parts, fetched ones included, add up to more than "
                    f"max_media_request_bytes = {self.fetcher.limits.request_bytes}",
                    where,
                )
        return dataclasses.replace(self.request, messages=messages)


def _swapped(message: JSONDict, swaps: dict[int, JSONDict]) -> JSONDict:
    """``message`` with the parts in ``swaps`` (by identity) replaced."""
    key = "content" if message.get("role") == "user" else MEDIA_RESULT_KEY
    parts = message.get(key)
    if not isinstance(parts, list) or not any(id(part) in swaps for part in parts):
        return message
    return {**message, key: [swaps.get(id(part), part) for part in parts]}
