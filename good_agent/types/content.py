"""Content parts of a user message: images, documents and audio, by URL or as bytes.

A prompt is a string, or a list of strings and parts::

    agent.run(["What is on this receipt?", BinaryContent(png, "image/png")])

Each part converts itself to the neutral (OpenAI Chat Completions) content part the
provider layer reads with ``to_openai``; every codec translates that to its
vendor's own form. Bytes are written to JSON as base64.
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer, field_validator

MediaKind = Literal["image", "document", "audio"]
"""The kinds of media a model may accept."""

MEDIA_KEY = "media_type"
"""Key of a neutral content part dict holding the part's media type (codecs of
vendors that need it read it; the OpenAI codecs drop it)."""

_AUDIO_FORMATS = {"audio/wav": "wav", "audio/x-wav": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3"}


def guess_media_type(url: str, default: str) -> str:
    """The media type a URL's file name suggests, else ``default``."""
    guessed, _ = mimetypes.guess_type(url.split("?", 1)[0])
    return guessed or default


def kind_of_media(media_type: str) -> MediaKind:
    """``image`` or ``audio`` by the media type's top level; every other type is a document."""
    top = media_type.split("/", 1)[0].lower()
    if top == "image":
        return "image"
    if top == "audio":
        return "audio"
    return "document"


class _UrlPart(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    url: str
    media_type: str | None = None

    def __init__(self, url: str | None = None, media_type: str | None = None, **data: Any) -> None:
        if url is not None:
            data["url"] = url
        if media_type is not None:
            data["media_type"] = media_type
        super().__init__(**data)


class ImageUrl(_UrlPart):
    """An image the model fetches itself: ``ImageUrl("https://.../chart.png")``."""

    kind: Literal["image-url"] = "image-url"

    @property
    def media_kind(self) -> MediaKind:
        """Always ``image``."""
        return "image"

    def to_openai(self) -> dict[str, Any]:
        """The neutral ``image_url`` part."""
        media = self.media_type or guess_media_type(self.url, "image/png")
        return {"type": "image_url", "image_url": {"url": self.url}, MEDIA_KEY: media}


class DocumentUrl(_UrlPart):
    """A document (PDF, plain text) the model fetches itself, by URL."""

    kind: Literal["document-url"] = "document-url"

    @property
    def media_kind(self) -> MediaKind:
        """Always ``document``."""
        return "document"

    def to_openai(self) -> dict[str, Any]:
        """The neutral ``file`` part with a ``file_url`` (OpenAI Chat has no such form)."""
        media = self.media_type or guess_media_type(self.url, "application/pdf")
        return {"type": "file", "file": {"file_url": self.url}, MEDIA_KEY: media}


class AudioUrl(_UrlPart):
    """An audio recording the model fetches itself, by URL."""

    kind: Literal["audio-url"] = "audio-url"

    @property
    def media_kind(self) -> MediaKind:
        """Always ``audio``."""
        return "audio"

    def to_openai(self) -> dict[str, Any]:
        """The neutral ``input_audio`` part with a ``url`` (OpenAI Chat has no such form)."""
        media = self.media_type or guess_media_type(self.url, "audio/mpeg")
        return {"type": "input_audio", "input_audio": {"url": self.url}, MEDIA_KEY: media}


class BinaryContent(BaseModel):
    """Bytes with their media type: ``BinaryContent(png_bytes, "image/png")``.

    The media type says the kind: ``image/*`` an image, ``audio/*`` audio, anything
    else (``application/pdf``, ``text/plain``) a document. In JSON (a dumped history)
    the bytes are standard base64, and base64 text given as ``data`` is decoded.
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    data: bytes
    media_type: str
    kind: Literal["binary"] = "binary"

    @field_validator("data", mode="before")
    @classmethod
    def _from_base64(cls, value: Any) -> Any:
        """Text is base64 (as ``_to_base64`` wrote it): decode it, strictly."""
        if isinstance(value, str):
            try:
                return base64.b64decode(value, validate=True)
            except binascii.Error as exc:
                raise ValueError(f"data is not base64: {exc}") from None
        return value

    @field_serializer("data", when_used="json")
    def _to_base64(self, value: bytes) -> str:
        """Standard base64 (not pydantic's URL-safe form), as every vendor reads it."""
        return base64.b64encode(value).decode("ascii")

    def __init__(self, data: bytes | None = None, media_type: str | None = None, **rest: Any):
        if data is not None:
            rest["data"] = data
        if media_type is not None:
            rest["media_type"] = media_type
        super().__init__(**rest)

    def __repr__(self) -> str:
        return f"BinaryContent(<{len(self.data)} bytes>, media_type={self.media_type!r})"

    @property
    def media_kind(self) -> MediaKind:
        """``image``, ``audio`` or ``document``, by the media type."""
        return kind_of_media(self.media_type)

    @property
    def base64(self) -> str:
        """The bytes as base64 text."""
        return base64.b64encode(self.data).decode("ascii")

    @property
    def data_url(self) -> str:
        """The bytes as a ``data:`` URL."""
        return f"data:{self.media_type};base64,{self.base64}"

    def to_openai(self) -> dict[str, Any]:
        """The neutral part: ``image_url`` (a data URL), ``input_audio`` or ``file``."""
        kind = self.media_kind
        if kind == "image":
            part: dict[str, Any] = {"type": "image_url", "image_url": {"url": self.data_url}}
        elif kind == "audio":
            audio_format = _AUDIO_FORMATS.get(self.media_type, self.media_type.split("/")[-1])
            part = {
                "type": "input_audio",
                "input_audio": {"data": self.base64, "format": audio_format},
            }
        else:
            extension = mimetypes.guess_extension(self.media_type) or ".bin"
            filename = f"document{extension}"
            part = {"type": "file", "file": {"file_data": self.data_url, "filename": filename}}
        part[MEDIA_KEY] = self.media_type
        return part


ContentPart = Annotated[
    ImageUrl | DocumentUrl | AudioUrl | BinaryContent, Field(discriminator="kind")
]
"""One media part of a user message."""

UserContent = str | ContentPart
"""One item of a user message's content: text or a media part."""

UserPrompt = str | Sequence[str | ImageUrl | DocumentUrl | AudioUrl | BinaryContent]
"""What ``agent.run`` accepts as a prompt: text, or a list of text and parts."""


def content_to_openai(content: str | Sequence[UserContent]) -> str | list[dict[str, Any]]:
    """A user message's content as the neutral content (a string or a list of parts)."""
    if isinstance(content, str):
        return content
    return [
        {"type": "text", "text": item} if isinstance(item, str) else item.to_openai()
        for item in content
    ]


def media_parts(content: str | Sequence[UserContent]) -> list[ContentPart]:
    """The media parts of a user message's content (none for a string)."""
    if isinstance(content, str):
        return []
    return [item for item in content if not isinstance(item, str)]


def user_content(prompt: UserPrompt) -> str | list[UserContent]:
    """A prompt as a user message's content; a list with an item of another type is refused."""
    if isinstance(prompt, str):
        return prompt
    items: list[UserContent] = []
    for item in prompt:
        if not isinstance(item, str | ImageUrl | DocumentUrl | AudioUrl | BinaryContent):
            raise TypeError(
                f"a prompt item must be text, ImageUrl, DocumentUrl, AudioUrl or "
                f"BinaryContent, not {type(item).__name__}"
            )
        items.append(item)
    return items
