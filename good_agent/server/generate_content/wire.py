"""The Gemini API wire format on the client side of the bridge (``generateContent``).

`parse_generate_request` turns a ``GenerateContentRequest`` into the neutral
`BridgeRequest`, naming the offending field (in
Gemini's camelCase, ``contents[1].parts[0].functionResponse.name``) in every error.
Field names are read in camelCase or snake_case, as Google's JSON parsers accept
both. ``functionCall`` parts become assistant ``tool_calls`` with ids the bridge
makes (or the part's own ``id``); a ``functionResponse`` answers the earliest
unanswered call of its name (or its ``id``), as Gemini matches them, and its own
``parts`` (images, documents, audio a tool returned) become the tool result's media.
`generate_body` and `GeminiStreamWriter` write replies and stream
chunks as Gemini does: whole ``functionCall`` parts, ``finishReason`` and
``usageMetadata`` on the last chunk.

Reference: https://ai.google.dev/api/generate-content and
https://ai.google.dev/gemini-api/docs/function-calling
"""

from __future__ import annotations

import json
import mimetypes
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

from good_agent.providers import builtin_tools
from good_agent.providers.gemini.codec import field_of
from good_agent.providers.gemini.schema import from_gemini_schema
from good_agent.providers.streaming import ToolCallArgs, ToolCallStart
from good_agent.providers.types import JSONDict, ToolChoice
from good_agent.server import builtin_tools as wire_builtin
from good_agent.server.common.errors import BridgeError, bad_request
from good_agent.server.common.utf8 import utf8
from good_agent.server.served import BridgeRequest, finish_of
from good_agent.server.tool_schemas import check_output_schema, check_tool_schema
from good_agent.types.builtin_tools import BuiltinTool
from good_agent.types.content import MEDIA_KEY, kind_of_media
from good_agent.types.messages import MEDIA_RESULT_KEY, REPLAY_KEY, ModelResponse, ToolCall
from good_agent.types.usage import Usage

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]{0,63}")
_SKIPPED_PARTS = ("thought_signature", "video_metadata")
FINISH_REASONS = {
    "stop": "STOP",
    "tool_calls": "STOP",
    "length": "MAX_TOKENS",
    "content_filter": "SAFETY",
}
"""OpenAI finish reasons mapped to Gemini ``finishReason`` values (``OTHER`` otherwise)."""

_SETTINGS = {
    "temperature": "temperature",
    "top_p": "top_p",
    "top_k": "top_k",
    "max_output_tokens": "max_tokens",
    "seed": "seed",
    "presence_penalty": "presence_penalty",
    "frequency_penalty": "frequency_penalty",
}
_NUMBERS = {"temperature", "top_p", "presence_penalty", "frequency_penalty"}


def _camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(word.title() for word in rest)


def _object(value: Any, path: str, *, required: bool = False) -> JSONDict:
    if value is None and not required:
        return {}
    if not isinstance(value, dict):
        raise bad_request(f"'{path}' must be an object", path)
    return value


def _list(value: Any, path: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise bad_request(f"'{path}' must be an array", path)
    return value


def _string(value: Any, path: str) -> str:
    if not isinstance(value, str) or not value:
        raise bad_request(f"'{path}' must be a non-empty string", path)
    return value


@dataclass(slots=True)
class _Calls:
    """The function calls of the history so far, for matching responses to them."""

    pending: list[tuple[str, str]] = field(default_factory=list)
    made: int = 0

    def new(self, name: str, given: Any) -> str:
        self.made += 1
        call_id = given if isinstance(given, str) and given else f"call_{uuid.uuid4().hex[:24]}"
        self.pending.append((call_id, name))
        return call_id

    def answer(self, name: str, given: Any) -> str | None:
        """The id of the call a response answers: by ``id`` when it names a pending
        call, else the earliest pending call of ``name``."""
        for index, (call_id, _) in enumerate(self.pending):
            if isinstance(given, str) and call_id == given:
                del self.pending[index]
                return call_id
        for index, (call_id, call_name) in enumerate(self.pending):
            if call_name == name:
                del self.pending[index]
                return call_id
        return None


def _standard_base64(data: str) -> str:
    """``data`` in the standard base64 alphabet, padded: Gemini's API also takes the
    URL-safe alphabet, which the google-genai SDK sends."""
    data = data.replace("-", "+").replace("_", "/")
    return data + "=" * (-len(data) % 4)


def _media(part: JSONDict, path: str) -> JSONDict:
    """An ``inlineData`` or ``fileData`` part as the neutral media part."""
    inline = field_of(part, "inline_data")
    if inline is not None:
        where = f"{path}.inlineData"
        inline = _object(inline, where)
        mime = _string(field_of(inline, "mime_type"), f"{where}.mimeType")
        data = _standard_base64(_string(inline.get("data"), f"{where}.data"))
        url = f"data:{mime};base64,{data}"
    else:
        where = f"{path}.fileData"
        found = _object(field_of(part, "file_data"), where)
        url = _string(field_of(found, "file_uri"), f"{where}.fileUri")
        mime = field_of(found, "mime_type") or mimetypes.guess_type(url)[0] or ""
        mime = _string(mime, f"{where}.mimeType")
    kind = kind_of_media(mime)
    if kind == "image":
        return {"type": "image_url", "image_url": {"url": url}, MEDIA_KEY: mime}
    if kind == "audio":
        inner = {"url": url} if inline is None else {"data": data, "format": mime.split("/")[-1]}
        return {"type": "input_audio", "input_audio": inner, MEDIA_KEY: mime}
    if inline is None:
        return {"type": "file", "file": {"file_url": url}, MEDIA_KEY: mime}
    name = f"document{mimetypes.guess_extension(mime) or '.bin'}"
    return {"type": "file", "file": {"file_data": url, "filename": name}, MEDIA_KEY: mime}


def _response_text(response: Any) -> tuple[str, bool]:
    """A ``functionResponse.response`` as tool-result text, and whether it is an error."""
    if set(response) == {"output"} and isinstance(response["output"], str):
        return response["output"], False
    is_error = set(response) == {"error"}
    return json.dumps(response, ensure_ascii=False), is_error


def _response_media(parts: Any, where: str) -> list[JSONDict]:
    """A ``functionResponse``'s own ``parts`` (``inlineData`` / ``fileData``, as
    Gemini takes multimodal function results) as the tool result's media parts."""
    media = []
    for number, part in enumerate(_list(parts, where)):
        path = f"{where}[{number}]"
        part = _object(part, path)
        if field_of(part, "inline_data") is None and field_of(part, "file_data") is None:
            kinds = ", ".join(sorted(part)) or "nothing"
            raise bad_request(
                f"'{path}' holds {kinds}; a function response's parts are inlineData or fileData",
                path,
            )
        media.append(_media(part, path))
    return media


def _user_turn(parts: list[Any], where: str, calls: _Calls) -> list[JSONDict]:
    results: list[JSONDict] = []
    content: list[JSONDict] = []
    for number, part in enumerate(parts):
        path = f"{where}.parts[{number}]"
        if not isinstance(part, dict):
            raise bad_request(f"'{path}' must be an object", path)
        answer = field_of(part, "function_response")
        if isinstance(part.get("text"), str):
            content.append({"type": "text", "text": part["text"]})
        elif answer is not None:
            answer = _object(answer, f"{path}.functionResponse")
            name = _string(answer.get("name"), f"{path}.functionResponse.name")
            response = _object(
                answer.get("response"), f"{path}.functionResponse.response", required=True
            )
            call_id = calls.answer(name, answer.get("id"))
            if call_id is None:
                raise bad_request(
                    f"'{path}.functionResponse' answers no earlier unanswered functionCall "
                    f"named '{name}'",
                    f"{path}.functionResponse.name",
                )
            text, is_error = _response_text(response)
            message: JSONDict = {
                "role": "tool",
                "tool_call_id": call_id,
                "name": name,
                "content": text,
            }
            if is_error:
                message["is_error"] = True
            media = _response_media(answer.get("parts"), f"{path}.functionResponse.parts")
            if media:
                message[MEDIA_RESULT_KEY] = media
            results.append(message)
        elif field_of(part, "inline_data") is not None or field_of(part, "file_data") is not None:
            content.append(_media(part, path))
        else:
            _unsupported(part, path)
    if any(part["type"] != "text" for part in content):
        results.append({"role": "user", "content": content})
    elif content:
        results.append({"role": "user", "content": "".join(p["text"] for p in content)})
    return results


def _unsupported(part: JSONDict, path: str) -> None:
    """Nothing for a part that only carries metadata (a thought signature); a 400
    naming ``path`` for a part of a kind the bridge does not translate."""
    if {_snake(key) for key in part} <= {*_SKIPPED_PARTS, "thought"}:
        return
    kinds = ", ".join(sorted(part)) or "nothing"
    raise bad_request(
        f"'{path}' holds {kinds}; the bridge takes text, inlineData, fileData, "
        "functionCall and functionResponse parts",
        path,
    )


def _snake(key: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", key).lower()


def _model_turn(parts: list[Any], where: str, calls: _Calls) -> JSONDict:
    texts: list[str] = []
    tool_calls: list[JSONDict] = []
    replay: list[JSONDict] = []
    for number, part in enumerate(parts):
        path = f"{where}.parts[{number}]"
        if not isinstance(part, dict):
            raise bad_request(f"'{path}' must be an object", path)
        call = field_of(part, "function_call")
        if isinstance(part.get("text"), str):
            if not part.get("thought"):
                texts.append(part["text"])
        elif call is not None:
            call = _object(call, f"{path}.functionCall")
            name = _string(call.get("name"), f"{path}.functionCall.name")
            args = _object(call.get("args"), f"{path}.functionCall.args")
            tool_calls.append(
                {
                    "id": calls.new(name, call.get("id")),
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)},
                }
            )
        elif field_of(part, "function_response") is not None:
            raise bad_request(
                f"'{path}.functionResponse' belongs in a user turn", f"{path}.functionResponse"
            )
        elif (kept := builtin_tools.gemini_part(part, builtin_tools.Parts())) is not None:
            replay.append(kept)  # code execution parts go upstream again, as they are
        else:
            _unsupported(part, path)
    message: JSONDict = {"role": "assistant", "content": "".join(texts) or None}
    if tool_calls:
        message["tool_calls"] = tool_calls
    if replay:
        message[REPLAY_KEY] = replay
    return message


def _system(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    content = _object(value, "systemInstruction")
    texts: list[str] = []
    for number, part in enumerate(_list(content.get("parts"), "systemInstruction.parts")):
        path = f"systemInstruction.parts[{number}].text"
        if not isinstance(part, dict) or not isinstance(part.get("text"), str):
            raise bad_request(f"'{path}' must be a string", path)
        texts.append(part["text"])
    return "\n".join(texts)


def _messages(body: JSONDict) -> list[JSONDict]:
    contents = body.get("contents")
    if isinstance(contents, dict):
        contents = [contents]
    if not isinstance(contents, list) or not contents:
        raise bad_request("'contents' must be a non-empty array", "contents")
    out: list[JSONDict] = []
    system = _system(field_of(body, "system_instruction"))
    if system:
        out.append({"role": "system", "content": system})
    calls = _Calls()
    for index, content in enumerate(contents):
        where = f"contents[{index}]"
        content = _object(content, where, required=True)
        role = content.get("role", "user")
        if role not in ("user", "model", "function"):
            raise bad_request(f"'{where}.role' must be 'user' or 'model'", f"{where}.role")
        parts = _list(content.get("parts"), f"{where}.parts")
        if not parts:
            raise bad_request(f"'{where}.parts' must be a non-empty array", f"{where}.parts")
        if role == "model":
            out.append(_model_turn(parts, where, calls))
        else:
            out += _user_turn(parts, where, calls)
    return out


def _tools(value: Any, builtin: list[BuiltinTool]) -> list[JSONDict]:
    """The function declarations; built-in tools (``googleSearch``, ``codeExecution``,
    ``urlContext``) go to ``builtin``."""
    tools: list[JSONDict] = []
    seen: set[str] = set()
    for index, tool in enumerate(_list(value, "tools")):
        where = f"tools[{index}]"
        tool = _object(tool, where, required=True)
        builtin += wire_builtin.gemini_tools(tool, where)
        others = sorted(
            key
            for key in tool
            if _snake(key) != "function_declarations" and key not in wire_builtin.GEMINI_TOOL_KEYS
        )
        if others:
            raise bad_request(
                f"'{where}.{others[0]}': the bridge serves functionDeclarations and the"
                " built-in tools googleSearch, codeExecution and urlContext",
                f"{where}.{others[0]}",
            )
        declarations = field_of(tool, "function_declarations")
        for number, declaration in enumerate(_list(declarations, f"{where}.functionDeclarations")):
            path = f"{where}.functionDeclarations[{number}]"
            declaration = _object(declaration, path, required=True)
            name = declaration.get("name")
            if not isinstance(name, str) or not _NAME.fullmatch(name):
                raise bad_request(
                    f"'{path}.name' must be a function name (letters, digits, _ . : -, at "
                    f"most 64), got {name!r}",
                    f"{path}.name",
                )
            if name in seen:
                raise bad_request(f"function '{name}' is declared twice", f"{path}.name")
            seen.add(name)
            tools.append(_declaration(declaration, name, path))
    return tools


def _declaration(declaration: JSONDict, name: str, path: str) -> JSONDict:
    schema = field_of(declaration, "parameters_json_schema")
    where = f"{path}.parametersJsonSchema"
    if schema is None:
        schema = from_gemini_schema(declaration.get("parameters"))
        where = f"{path}.parameters"
    if schema is None:
        schema = {"type": "object", "properties": {}}
    check_tool_schema(schema, where)
    function: JSONDict = {"name": name, "parameters": schema}
    if isinstance(declaration.get("description"), str) and declaration["description"]:
        function["description"] = declaration["description"]
    return {"type": "function", "function": function}


def _tool_choice(value: Any, tools: list[JSONDict]) -> tuple[ToolChoice | None, list[JSONDict]]:
    """The neutral ``tool_choice`` for ``toolConfig``, and the tools it leaves offered."""
    where = "toolConfig.functionCallingConfig"
    config = _object(field_of(_object(value, "toolConfig"), "function_calling_config"), where)
    if not config:
        return None, tools
    mode = str(config.get("mode") or "AUTO").upper()
    if mode not in ("AUTO", "ANY", "NONE", "VALIDATED", "MODE_UNSPECIFIED"):
        raise bad_request(f"'{where}.mode' must be AUTO, ANY or NONE", f"{where}.mode")
    allowed = _list(field_of(config, "allowed_function_names"), f"{where}.allowedFunctionNames")
    if allowed and mode not in ("ANY", "VALIDATED"):
        raise bad_request(
            f"'{where}.allowedFunctionNames' is only allowed with mode ANY",
            f"{where}.allowedFunctionNames",
        )
    known = [str(tool["function"]["name"]) for tool in tools]
    for number, name in enumerate(allowed):
        if name not in known:
            offered = ", ".join(known) or "none"
            raise bad_request(
                f"'{where}.allowedFunctionNames[{number}]' names {name!r}, which is not "
                f"declared (declared: {offered})",
                f"{where}.allowedFunctionNames[{number}]",
            )
    if mode == "NONE":
        return "none", tools
    if mode in ("AUTO", "MODE_UNSPECIFIED"):
        return "auto" if tools else None, tools
    if not tools:
        raise bad_request(f"'{where}.mode' ANY needs declared functions", f"{where}.mode")
    if len(allowed) == 1:
        return {"type": "function", "function": {"name": allowed[0]}}, tools
    if allowed:
        tools = [tool for tool in tools if tool["function"]["name"] in allowed]
    return "required", tools


def _number(value: Any, path: str, *, whole: bool) -> Any:
    kinds = (int,) if whole else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or value != value:
        kind = "an integer" if whole else "a number"
        raise bad_request(f"'{path}' must be {kind}", path)
    if value < 0 or value > 2**31 - 1:
        raise bad_request(f"'{path}' is out of range (0 to 2147483647)", path)
    return value


def _generation(value: Any) -> tuple[JSONDict, JSONDict | None]:
    """The settings and ``response_format`` of a ``generationConfig``."""
    config = _object(value, "generationConfig")
    settings: JSONDict = {}
    for snake, setting in _SETTINGS.items():
        found = field_of(config, snake)
        if found is not None:
            path = f"generationConfig.{_camel(snake)}"
            if snake != "seed":
                _number(found, path, whole=snake not in _NUMBERS)
            elif isinstance(found, bool) or not isinstance(found, int):
                raise bad_request(f"'{path}' must be an integer", path)
            settings[setting] = found
    if settings.get("max_tokens") == 0:
        raise bad_request(
            "'generationConfig.maxOutputTokens' must be positive",
            "generationConfig.maxOutputTokens",
        )
    stops = field_of(config, "stop_sequences")
    if stops is not None:
        if not isinstance(stops, list) or not all(isinstance(s, str) for s in stops):
            raise bad_request(
                "'generationConfig.stopSequences' must be an array of strings",
                "generationConfig.stopSequences",
            )
        if stops:
            settings["stop"] = stops
    count = field_of(config, "candidate_count")
    if count not in (None, 1):
        raise bad_request(
            "'generationConfig.candidateCount' must be 1 (one candidate per request)",
            "generationConfig.candidateCount",
        )
    return settings, _response_format(config)


def _response_format(config: JSONDict) -> JSONDict | None:
    mime = field_of(config, "response_mime_type")
    json_schema = field_of(config, "response_json_schema")
    where = "generationConfig.responseJsonSchema"
    if json_schema is None:
        json_schema = from_gemini_schema(field_of(config, "response_schema"))
        where = "generationConfig.responseSchema"
    if mime not in (None, "text/plain", "application/json", "text/x.enum"):
        raise bad_request(
            "'generationConfig.responseMimeType' must be text/plain or application/json",
            "generationConfig.responseMimeType",
        )
    if json_schema is not None:
        if mime not in ("application/json", "text/x.enum"):
            raise bad_request(
                f"'generationConfig.responseMimeType' must be application/json with {where}",
                "generationConfig.responseMimeType",
            )
        check_output_schema(json_schema, where)
        return {"type": "json_schema", "json_schema": {"name": "response", "schema": json_schema}}
    if mime == "application/json":
        return {"type": "json_object"}
    return None


def parse_generate_request(body: Any) -> BridgeRequest:
    """Validate a ``generateContent`` body; the model comes from the URL."""
    if not isinstance(body, dict):
        raise bad_request("the request body must be a JSON object")
    messages = _messages(body)
    builtin: list[BuiltinTool] = []
    tools = _tools(body.get("tools"), builtin)
    choice, tools = _tool_choice(field_of(body, "tool_config"), tools)
    settings, fmt = _generation(field_of(body, "generation_config"))
    settings = wire_builtin.with_builtin(settings, builtin)
    return BridgeRequest(messages, tools, choice, None, fmt, settings)


def model_of(target: str) -> tuple[str, str]:
    """``(model, method)`` of the path's ``{model}:{method}`` (``models/`` prefix dropped)."""
    model, _, method = target.removeprefix("models/").rpartition(":")
    return model, method


def usage_metadata(usage: Usage) -> JSONDict:
    """Gemini ``usageMetadata`` (with ``cachedContentTokenCount`` when input was read
    from the cache)."""
    body: JSONDict = {
        "promptTokenCount": usage.input_tokens,
        "candidatesTokenCount": usage.output_tokens,
        "totalTokenCount": usage.total_tokens,
    }
    if usage.cache_read_tokens:
        body["cachedContentTokenCount"] = usage.cache_read_tokens
    return body


def _arguments(call: ToolCall) -> JSONDict:
    if call.arguments_error is None:
        return call.arguments
    raw = call.arguments_text
    try:
        value = json.loads(raw) if raw.strip() else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def call_parts(calls: list[ToolCall]) -> list[JSONDict]:
    """Whole ``functionCall`` parts (no ids: clients match responses by name and order)."""
    return [{"functionCall": {"name": call.name, "args": _arguments(call)}} for call in calls]


def response_id() -> str:
    """A fresh ``responseId``."""
    return uuid.uuid4().hex[:22]


def _candidate(
    parts: list[JSONDict], finish: str | None, reply: ModelResponse | None = None
) -> JSONDict:
    candidate: JSONDict = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish is not None:
        candidate["finishReason"] = FINISH_REASONS.get(finish, "OTHER")
    if reply is not None:
        candidate.update(wire_builtin.gemini_grounding(reply))
    return candidate


def generate_body(reply: ModelResponse, model: str) -> JSONDict:
    """A whole ``GenerateContentResponse``."""
    parts: list[JSONDict] = []
    if reply.reasoning:
        parts.append({"text": reply.reasoning, "thought": True})
    parts += wire_builtin.gemini_parts(reply)
    if reply.content:
        parts.append({"text": reply.content})
    parts += call_parts(reply.tool_calls)
    return {
        "candidates": [_candidate(parts, finish_of(reply), reply)],
        "usageMetadata": usage_metadata(reply.usage),
        "modelVersion": model,
        "responseId": response_id(),
    }


def sse_chunk(payload: JSONDict) -> bytes:
    """One ``data:`` event, as ``streamGenerateContent?alt=sse`` writes them."""
    return utf8(f"data: {json.dumps(payload, ensure_ascii=False)}\r\n\r\n")


class GeminiStreamWriter:
    """Writes the ``GenerateContentResponse`` chunks of one streamed reply."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.id = response_id()
        self.usage = Usage()
        """The reply's usage so far (kept by the stream's relay)."""

    def chunk(
        self,
        parts: list[JSONDict],
        finish: str | None = None,
        usage: Usage | None = None,
        reply: ModelResponse | None = None,
    ) -> bytes:
        """One chunk with ``parts`` (and the finish reason, usage and grounding on the
        last)."""
        payload: JSONDict = {
            "candidates": [_candidate(parts, finish, reply)],
            "modelVersion": self.model,
            "responseId": self.id,
        }
        if usage is not None:
            payload["usageMetadata"] = usage_metadata(usage)
        return sse_chunk(payload)

    def opening(self) -> bytes:
        """Nothing: the first chunk carries the first part."""
        return b""

    def text(self, text: str, *, thought: bool = False) -> bytes:
        """A text (or thought) part; nothing for empty text."""
        if not text:
            return b""
        part: JSONDict = {"text": text, "thought": True} if thought else {"text": text}
        return self.chunk([part])

    def reasoning(self, text: str) -> bytes:
        """A thought part."""
        return self.text(text, thought=True)

    def call(self, delta: ToolCallStart | ToolCallArgs) -> bytes:
        """Nothing: whole function calls go in the last chunk."""
        return b""

    async def reply(self, reply: ModelResponse) -> bytes:
        """The last chunk: a Gemini upstream's code execution parts, the whole function
        calls, the finish reason, the usage and the grounding metadata."""
        parts = wire_builtin.gemini_parts(reply) + call_parts(reply.tool_calls)
        return self.chunk(parts, finish_of(reply), self.usage, reply)

    def ending(self) -> bytes:
        """Nothing more."""
        return b""

    def failure(self, error: BridgeError, request_id: str) -> bytes:
        """The error in Gemini's shape."""
        return sse_chunk(error.gemini_body())
