"""Which media parts a model takes: the check made before any request is sent.

The model's [`ModelProfile`][good_agent.ModelProfile] says whether it
takes images, documents and audio. A model called in a prompted mode (its tools
written into the text) takes none. A part the model cannot take raises
[`ModelCapabilityError`][good_agent.ModelCapabilityError] naming the model and the part, unless the
profile's ``media_placeholder`` is set: then the part is replaced by a short text.
"""

from __future__ import annotations

from good_agent.providers.parts import MediaPart, read_part
from good_agent.providers.profiles import ModelProfile
from good_agent.providers.strategies.base import ToolCallingMode
from good_agent.providers.types import JSONDict
from good_agent.types.errors import ModelCapabilityError
from good_agent.types.messages import MEDIA_RESULT_KEY

TEXT_MODES = frozenset({ToolCallingMode.VALIDATED, ToolCallingMode.PARSED})
"""The prompted modes: the model is treated as text-only."""


_PLURALS = {"image": "images", "document": "documents", "audio": "audio"}


def refusal(profile: ModelProfile, part: MediaPart, mode: ToolCallingMode) -> str | None:
    """Why the model cannot take ``part`` in ``mode``, or ``None`` when it can."""
    if mode in TEXT_MODES:
        return f"it is called in the prompted mode {mode.value!r} (text only)"
    accepts = {
        "image": profile.accepts_images,
        "document": profile.accepts_documents,
        "audio": profile.accepts_audio,
    }[part.kind]
    return None if accepts else f"its profile does not accept {_PLURALS[part.kind]}"


def placeholder(part: MediaPart) -> JSONDict:
    """The text sent instead of a part the model cannot take."""
    return {"type": "text", "text": f"[{part.kind} ({part.media_type}) not shown to this model]"}


def _checked_tool_result(
    profile: ModelProfile, message: JSONDict, mode: ToolCallingMode
) -> JSONDict:
    kept: list[JSONDict] = []
    texts: list[str] = []
    for item in message[MEDIA_RESULT_KEY]:
        media = read_part(item)
        reason = None if media is None else refusal(profile, media, mode)
        if media is None or reason is None:
            kept.append(item)
        elif profile.media_placeholder:
            texts.append(placeholder(media)["text"])
        else:
            raise ModelCapabilityError(profile.model, media.describe(), reason)
    content = (
        "\n".join([str(message.get("content") or ""), *texts]) if texts else message["content"]
    )
    rest = {k: v for k, v in message.items() if k != MEDIA_RESULT_KEY}
    return {**rest, "content": content, **({MEDIA_RESULT_KEY: kept} if kept else {})}


def checked_messages(
    profile: ModelProfile, messages: list[JSONDict], mode: ToolCallingMode
) -> list[JSONDict]:
    """``messages`` with every media part the model takes; placeholders (when the
    profile allows them) for the rest, else
    [`ModelCapabilityError`][good_agent.ModelCapabilityError]."""
    out: list[JSONDict] = []
    for message in messages:
        if message.get("role") == "tool" and message.get(MEDIA_RESULT_KEY):
            out.append(_checked_tool_result(profile, message, mode))
            continue
        content = message.get("content")
        if message.get("role") != "user" or not isinstance(content, list):
            out.append(message)
            continue
        parts = []
        for item in content:
            media = read_part(item)
            reason = None if media is None else refusal(profile, media, mode)
            if media is None or reason is None:
                parts.append(item)
            elif profile.media_placeholder:
                parts.append(placeholder(media))
            else:
                raise ModelCapabilityError(profile.model, media.describe(), reason)
        out.append({**message, "content": parts})
    return out
