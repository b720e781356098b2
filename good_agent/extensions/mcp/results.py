"""Mapping MCP tool results (``CallToolResult``) to what a good-agent tool returns.

* ``isError`` results raise `ToolError`, so the model
  reads the server's message as a tool error.
* Text-only results become a ``str`` (blocks joined by newlines).
* Results with ``structuredContent`` and only text blocks become that structured
  value (by the MCP spec the text is its serialization).
* Anything with images, audio or resources becomes an `MCPToolResult` whose
  parts are typed. Binary data stays on the parts for code (adapters, event
  handlers) but is excluded from the JSON the model reads.
"""

from __future__ import annotations

import base64
import binascii
from typing import Annotated, Any, Literal

import mcp_types as types
from pydantic import BaseModel, ConfigDict, Field, computed_field

from good_agent.types.errors import ToolError


def _decoded_size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return 0


class TextPart(BaseModel):
    """A text block of a tool result."""

    model_config = ConfigDict(frozen=True)

    type: Literal["text"] = "text"
    text: str


class _BinaryPart(BaseModel):
    """Base64 media returned by a tool; ``data`` is not shown to the model."""

    model_config = ConfigDict(frozen=True)

    type: str
    mime_type: str
    data: str = Field(exclude=True, repr=False)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def size(self) -> int:
        """Size of the decoded data in bytes."""
        return _decoded_size(self.data)

    def to_bytes(self) -> bytes:
        """The decoded data."""
        return base64.b64decode(self.data)


class ImagePart(_BinaryPart):
    """An image returned by a tool; ``data`` is base64 and not shown to the model."""

    type: Literal["image"] = "image"


class AudioPart(_BinaryPart):
    """Audio returned by a tool; ``data`` is base64 and not shown to the model."""

    type: Literal["audio"] = "audio"


class ResourcePart(BaseModel):
    """A resource embedded in a tool result: text, or a base64 ``blob``.

    The text is shown to the model; a blob is not (only its size is).
    """

    model_config = ConfigDict(frozen=True)

    type: Literal["resource"] = "resource"
    uri: str
    mime_type: str | None = None
    text: str | None = None
    blob: str | None = Field(default=None, exclude=True, repr=False)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def size(self) -> int | None:
        """Size of the decoded blob in bytes (``None`` for a text resource)."""
        return None if self.blob is None else _decoded_size(self.blob)


class ResourceLinkPart(BaseModel):
    """A link to a resource the server can read (not its contents)."""

    model_config = ConfigDict(frozen=True)

    type: Literal["resource_link"] = "resource_link"
    uri: str
    name: str
    description: str | None = None
    mime_type: str | None = None


Part = Annotated[
    TextPart | ImagePart | AudioPart | ResourcePart | ResourceLinkPart,
    Field(discriminator="type"),
]
"""One typed part of an `MCPToolResult`."""


class MCPToolResult(BaseModel):
    """A tool result with non-text parts, kept typed.

    Rendered for the model as JSON without binary data (parts show their type,
    MIME type and size instead).
    """

    model_config = ConfigDict(frozen=True)

    parts: list[Part]
    structured: Any = None

    @property
    def text(self) -> str:
        """The text blocks joined by newlines."""
        return "\n".join(p.text for p in self.parts if isinstance(p, TextPart))

    def of_type(self, kind: type[Any]) -> list[Any]:
        """The parts that are instances of ``kind`` (e.g. ``ImagePart``)."""
        return [part for part in self.parts if isinstance(part, kind)]


def to_part(block: types.ContentBlock) -> Part:
    """Convert one MCP content block to a typed part."""
    if isinstance(block, types.TextContent):
        return TextPart(text=block.text)
    if isinstance(block, types.ImageContent):
        return ImagePart(mime_type=block.mime_type, data=block.data)
    if isinstance(block, types.AudioContent):
        return AudioPart(mime_type=block.mime_type, data=block.data)
    if isinstance(block, types.EmbeddedResource):
        res = block.resource
        if isinstance(res, types.TextResourceContents):
            return ResourcePart(uri=str(res.uri), mime_type=res.mime_type, text=res.text)
        return ResourcePart(uri=str(res.uri), mime_type=res.mime_type, blob=res.blob)
    return ResourceLinkPart(
        uri=str(block.uri),
        name=block.name,
        description=block.description,
        mime_type=block.mime_type,
    )


def convert_result(server: str, tool: str, result: types.CallToolResult) -> Any:
    """Map a ``CallToolResult`` to a tool return value (see the module docs).

    Raises:
        ToolError: The result has ``isError`` set; the message names the server.
    """
    parts = [to_part(block) for block in result.content]
    if result.is_error:
        text = "\n".join(p.text for p in parts if isinstance(p, TextPart)) or "(no message)"
        raise ToolError(f"MCP server '{server}': tool '{tool}' failed: {text}")
    if all(isinstance(p, TextPart) for p in parts):
        if result.structured_content is not None:
            return result.structured_content
        return "\n".join(p.text for p in parts if isinstance(p, TextPart))
    return MCPToolResult(parts=parts, structured=result.structured_content)
