"""Media parts a client sends through the bridge: checked before any upstream call.

Both client APIs arrive here in the neutral form (OpenAI Chat content parts:
``image_url``, ``input_audio``, ``file``; ``/v1/messages`` translates its ``image``
and ``document`` blocks to them). Media a client puts in a tool result (the content
list of a ``role: tool`` message, see `tool_result_media`, or of a
``tool_result`` block) go in the tool message's ``media`` list, where each codec
finds them for its own slot. `check_media` then refuses, with a 400
naming the part's path, what no upstream should receive:

- a URL that is not ``https`` (``data:`` URLs must be base64), or whose host is
  ``localhost`` or an IP address that is not public: the bridge does not hand an
  upstream a private address to fetch (it fetches a URL itself only from the hosts
  of ``fetch_media_hosts``, see `good_agent.server.media_fetch`);
- base64 that does not decode, or a part without data or URL (a ``file_id``);
- bytes that are not what the declared media type says (PNG, JPEG, GIF, WebP
  and PDF are checked by their first bytes);
- a part larger than ``max_media_part_bytes``, or parts adding up to more than
  ``max_media_request_bytes`` (decoded sizes): a 413 naming the limit.

Whether the upstream model takes the part (its profile) and whether its API takes
a URL is the model core's check; its ``ModelCapabilityError`` becomes a 400.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
from dataclasses import dataclass
from urllib.parse import urlsplit

from good_agent.providers.history import text_of
from good_agent.providers.parts import MediaPart, read_part
from good_agent.providers.types import JSONDict
from good_agent.server.common.errors import BridgeError, bad_request
from good_agent.types.messages import MEDIA_RESULT_KEY

MEDIA_PART_TYPES = ("image_url", "input_audio", "file")
"""The neutral content part types that carry media."""

_MAGIC: dict[str, tuple[bytes, ...]] = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "application/pdf": (b"%PDF-",),
}


@dataclass(frozen=True, slots=True)
class MediaLimits:
    """Decoded byte limits: per part and for all the parts of one request."""

    part_bytes: int
    request_bytes: int


@dataclass(frozen=True, slots=True)
class FetchHosts:
    """The hosts whose URLs the bridge may fetch (``server.fetch_media_hosts``), and
    whether those may be plain http and private addresses (``allow_private_fetch``,
    for tests only)."""

    hosts: tuple[str, ...] = ()
    allow_private: bool = False

    def allows(self, host: str) -> bool:
        """Whether ``host`` is listed (exactly, or under a ``*.`` entry)."""
        host = host.lower().rstrip(".")
        return any(
            host == entry or (entry.startswith("*.") and host.endswith(entry[1:]))
            for entry in self.hosts
        )

    def unsafe(self, host: str) -> bool:
        """Whether ``host`` is exempt from the https and public-address rules."""
        return self.allow_private and self.allows(host)


def matches_media_type(data: bytes, media_type: str) -> bool:
    """Whether ``data`` starts as ``media_type`` files do (PNG, JPEG, GIF, WebP,
    PDF); other types are not checked."""
    media_type = media_type.lower()
    if media_type == "image/webp":
        return data[:4] == b"RIFF" and data[8:12] == b"WEBP"
    signatures = _MAGIC.get(media_type)
    return signatures is None or data.startswith(signatures)


def too_large(message: str, param: str) -> BridgeError:
    """The 413 for media over a limit."""
    return BridgeError(413, message, "invalid_request_error", param, "media_too_large")


def _check_url(url: str, where: str, fetch: FetchHosts) -> None:
    if url.startswith("data:"):
        raise bad_request(f"{where}: a data: URL must be base64 (data:<type>;base64,...)", where)
    parts = urlsplit(url)
    if parts.scheme in ("http", "https") and parts.hostname and fetch.unsafe(parts.hostname):
        return
    if parts.scheme != "https" or not parts.hostname:
        raise bad_request(f"{where}: only https URLs and base64 data: URLs are accepted", where)
    host = parts.hostname
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        private = host == "localhost" or host.endswith(".localhost")
    else:
        private = not address.is_global
    if private:
        raise bad_request(
            f"{where}: the URL's host {host!r} is not a public address; send the bytes instead",
            where,
        )


def _decode(media: MediaPart, where: str) -> bytes:
    try:
        return base64.b64decode(media.data or "", validate=True)
    except binascii.Error:
        raise bad_request(f"{where}: the {media.kind}'s data is not valid base64", where) from None


def is_media_part(part: object) -> bool:
    """Whether ``part`` is a neutral media content part."""
    return isinstance(part, dict) and part.get("type") in MEDIA_PART_TYPES


def tool_result_media(message: JSONDict) -> JSONDict:
    """A client's ``role: tool`` message whose content list holds media parts, with
    the parts moved to its ``media`` list and its text parts joined as its content;
    any other message as it is."""
    content = message.get("content")
    if message.get("role") != "tool" or not isinstance(content, list):
        return message
    media = [part for part in content if is_media_part(part)]
    if not media:
        return message
    text = text_of([part for part in content if not is_media_part(part)])
    return {**message, "content": text, MEDIA_RESULT_KEY: media}


def media_parts(messages: list[JSONDict]) -> list[tuple[str, JSONDict]]:
    """Every media part of ``messages`` with its path: a user message's content parts,
    and the media of tool results (numbered among the tool result's media)."""
    found: list[tuple[str, JSONDict]] = []
    for index, message in enumerate(messages):
        role, content = message.get("role"), message.get("content")
        if role == "user" and isinstance(content, list):
            parts, field = content, "content"
        elif role == "tool" and message.get(MEDIA_RESULT_KEY):
            parts, field = message[MEDIA_RESULT_KEY], "content"
        else:
            continue
        found.extend(
            (f"messages[{index}].{field}[{number}]", part)
            for number, part in enumerate(parts)
            if is_media_part(part)
        )
    return found


def check_media(
    messages: list[JSONDict], limits: MediaLimits, fetch: FetchHosts | None = None
) -> None:
    """Refuse bad or oversized media parts in ``messages`` (see the module docs)."""
    total = 0
    for where, part in media_parts(messages):
        media = read_part(part)
        if media is None or (media.url is None and not media.data):
            raise bad_request(
                f"{where}: a {part['type']} part needs inline data or an https URL "
                "(file ids are not accepted)",
                where,
            )
        if media.url is not None:
            _check_url(media.url, where, fetch or FetchHosts())
            continue
        data = _decode(media, where)
        if len(data) > limits.part_bytes:
            raise too_large(
                f"{where}: the {media.kind} is {len(data)} bytes, over the limit "
                f"max_media_part_bytes = {limits.part_bytes}",
                where,
            )
        total += len(data)
        if total > limits.request_bytes:
            raise too_large(
                f"{where}: the media parts add up to more than max_media_request_bytes "
                f"= {limits.request_bytes}",
                where,
            )
        if not matches_media_type(data, media.media_type):
            raise bad_request(f"{where}: the bytes are not {media.media_type} as declared", where)
