"""Media parts of the neutral history, read once for every codec.

A user message's content may be a list of OpenAI Chat content parts (``text``,
``image_url``, ``input_audio``, ``file``; see ``good_agent.types.content``).
``read_part`` turns a media part into a ``MediaPart`` (base64 data or a URL,
with its media type) that each vendor's codec writes in its own form;
``unsupported`` is the error a codec raises for a form its API does not have.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from good_agent.providers.history import call_names_by_id
from good_agent.providers.types import JSONDict
from good_agent.types.content import MEDIA_KEY, MediaKind, kind_of_media
from good_agent.types.errors import ModelCapabilityError
from good_agent.types.messages import MEDIA_RESULT_KEY

_FORMAT_TYPES = {"mp3": "audio/mpeg", "wav": "audio/wav"}


@dataclass(frozen=True, slots=True)
class MediaPart:
    """One image, document or audio part: ``data`` (base64) or ``url``, never both."""

    kind: MediaKind
    media_type: str
    data: str | None = None
    url: str | None = None
    filename: str | None = None

    def as_url(self) -> str:
        """The URL, or the data as a ``data:`` URL."""
        if self.url is not None:
            return self.url
        return f"data:{self.media_type};base64,{self.data}"

    def describe(self) -> str:
        """The part in words, for errors: ``an image part (image/png, inline data)``."""
        article = "an" if self.kind[0] in "aeiou" else "a"
        where = f"URL {self.url}" if self.url is not None else "inline data"
        return f"{article} {self.kind} part ({self.media_type}, {where})"


def split_data_url(url: str) -> tuple[str, str] | None:
    """``(media_type, base64)`` of a ``data:<type>;base64,<data>`` URL, else ``None``."""
    if not url.startswith("data:"):
        return None
    header, sep, data = url[5:].partition(",")
    if not sep or not header.endswith(";base64"):
        return None
    return header[: -len(";base64")] or "application/octet-stream", data


def read_part(part: Any) -> MediaPart | None:
    """The media part a neutral content part holds; ``None`` for text and other parts."""
    if not isinstance(part, dict):
        return None
    kind = part.get("type")
    declared = part.get(MEDIA_KEY)
    if kind == "image_url":
        inner = part.get("image_url") or {}
        return _from_url(str(inner.get("url", "")), declared, "image/png")
    if kind == "file":
        inner = part.get("file") or {}
        if isinstance(inner.get("file_url"), str):
            return MediaPart("document", declared or "application/pdf", url=inner["file_url"])
        found = _from_url(str(inner.get("file_data", "")), declared, "application/pdf")
        if found is None:
            return None
        return MediaPart(found.kind, found.media_type, found.data, filename=inner.get("filename"))
    if kind == "input_audio":
        inner = part.get("input_audio") or {}
        media = declared or _FORMAT_TYPES.get(str(inner.get("format")), "audio/wav")
        if isinstance(inner.get("url"), str):
            return MediaPart("audio", media, url=inner["url"])
        return MediaPart("audio", media, data=str(inner.get("data", "")))
    return None


def _from_url(url: str, declared: Any, default: str) -> MediaPart | None:
    inline = split_data_url(url)
    if inline is not None:
        media, data = inline
        return MediaPart(kind_of_media(media), media, data=data)
    if not url:
        return None
    media = declared if isinstance(declared, str) else default
    return MediaPart(kind_of_media(media), media, url=url)


def media_in(messages: list[JSONDict]) -> list[MediaPart]:
    """Every media part of the history's user messages, in order."""
    found: list[MediaPart] = []
    for message in messages:
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, list):
            found.extend(p for p in map(read_part, content) if p is not None)
    return found


def tool_media_as_user(messages: list[JSONDict]) -> list[JSONDict]:
    """The history with the media tool results carry moved into a user message after
    each run of tool results, for APIs whose tool results take text only (the text
    before them names the tool: the message's ``name``, else its call's)."""
    out: list[JSONDict] = []
    pending: list[JSONDict] = []
    by_id: dict[str, str] | None = None
    for message in messages:
        if message.get("role") != "tool" and pending:
            out.append({"role": "user", "content": pending})
            pending = []
        media = message.get(MEDIA_RESULT_KEY) if message.get("role") == "tool" else None
        if media:
            name = message.get("name")
            if not name:
                by_id = call_names_by_id(messages) if by_id is None else by_id
                name = by_id.get(str(message.get("tool_call_id")), "the tool")
            pending.append({"type": "text", "text": f"Returned by {name}:"})
            pending.extend(media)
            message = {k: v for k, v in message.items() if k != MEDIA_RESULT_KEY}
        out.append(message)
    if pending:
        out.append({"role": "user", "content": pending})
    return out


def without_media_key(part: JSONDict) -> JSONDict:
    """The part without the neutral media type key (for the OpenAI APIs)."""
    return {k: v for k, v in part.items() if k != MEDIA_KEY}


def unsupported(api: str, part: MediaPart, reason: str) -> ModelCapabilityError:
    """The error for a part ``api`` has no form for (raised before any request).

    It names ``api`` until the codec's ``encode_request`` (see `Codec`) names the
    model with [`ModelCapabilityError.for_model`][good_agent.ModelCapabilityError.for_model].
    """
    return ModelCapabilityError(api, part.describe(), reason, api=api)
