"""Mapping MCP ``CallToolResult`` values to tool return values."""

from __future__ import annotations

import base64

import mcp_types as types
import pytest

from good_agent import ToolError, ToolResponse
from good_agent.extensions.mcp import (
    AudioPart,
    ImagePart,
    MCPToolResult,
    ResourceLinkPart,
    ResourcePart,
    TextPart,
    convert_result,
)

BLOB = base64.b64encode(b"0123456789").decode()


def text(value: str) -> types.TextContent:
    return types.TextContent(type="text", text=value)


def test_mcp_text_only_results_are_strings() -> None:
    result = types.CallToolResult(content=[text("one"), text("two")])
    assert convert_result("srv", "t", result) == "one\ntwo"
    assert convert_result("srv", "t", types.CallToolResult(content=[])) == ""


def test_mcp_structured_content_wins_over_its_text() -> None:
    result = types.CallToolResult(content=[text('{"n": 1}')], structured_content={"n": 1})
    assert convert_result("srv", "t", result) == {"n": 1}


def test_mcp_is_error_raises_a_tool_error_naming_the_server() -> None:
    result = types.CallToolResult(content=[text("disk full")], is_error=True)
    with pytest.raises(ToolError, match=r"^MCP server 'srv': tool 't' failed: disk full$"):
        convert_result("srv", "t", result)
    silent = types.CallToolResult(content=[], is_error=True)
    with pytest.raises(ToolError, match=r"\(no message\)"):
        convert_result("srv", "t", silent)


def test_mcp_every_part_type_is_kept_typed() -> None:
    result = types.CallToolResult(
        content=[
            text("caption"),
            types.ImageContent(type="image", data=BLOB, mime_type="image/png"),
            types.AudioContent(type="audio", data=BLOB, mime_type="audio/wav"),
            types.EmbeddedResource(
                type="resource",
                resource=types.BlobResourceContents(
                    uri="file:///a.bin", mime_type="application/octet-stream", blob=BLOB
                ),
            ),
            types.ResourceLink(
                type="resource_link", uri="file:///b.txt", name="b", mime_type="text/plain"
            ),
        ],
        structured_content={"ok": True},
    )
    value = convert_result("srv", "t", result)
    assert isinstance(value, MCPToolResult)
    assert value.text == "caption"
    assert value.structured == {"ok": True}
    caption, image, audio, blob, link = value.parts
    assert caption == TextPart(text="caption")
    assert isinstance(image, ImagePart) and image.to_bytes() == b"0123456789"
    assert isinstance(audio, AudioPart) and audio.size == 10
    assert isinstance(blob, ResourcePart) and (blob.size, blob.text) == (10, None)
    assert isinstance(link, ResourceLinkPart) and (link.uri, link.name) == ("file:///b.txt", "b")
    assert value.of_type(ImagePart) == [image]

    shown = ToolResponse(tool_name="t", tool_call_id="1", response=value).content_text()
    assert BLOB not in shown
    assert '"mime_type":"audio/wav","size":10' in shown
    assert "image" in repr(value) and BLOB not in repr(value)


def test_mcp_tools_from_spec() -> None:
    from good_agent.extensions.mcp import MCPTools

    by_url = MCPTools.from_spec("http://127.0.0.1:8000/mcp")
    assert by_url.server_name == "127.0.0.1"
    by_command = MCPTools.from_spec("python -m weather_server", prefix=True)
    assert (by_command.server_name, by_command.prefix) == ("weather_server", True)
    assert MCPTools.from_spec(by_command) is by_command
    assert MCPTools.from_spec("srv", prefix="calc")._tool_name("add") == "calc_add"
    assert MCPTools.from_spec("srv", prefix="my tools!")._tool_name("add") == "my_tools_add"
    assert MCPTools.from_spec("srv")._tool_name("add") == "add"
    with pytest.raises(ValueError, match="either a command or url"):
        MCPTools()
