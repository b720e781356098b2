"""The `CitationIndex`: numbered, deduplicated sources, and the URL helpers it uses."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

_URL = re.compile(r"https?://[^\s<>\"'`{}|\\^\[\]]+", re.IGNORECASE)
"""A URL in text. One character class under one quantifier: linear time."""

_MARKDOWN_LINK = re.compile(r"\[([^\[\]\n]{1,300})\]\((https?://[^\s()<>]+)\)", re.IGNORECASE)
"""``[title](url)``: bounded, non-nested groups, linear time."""

_REFERENCE = re.compile(r"\[(\d{1,6})\]")
"""A reference ``[n]`` in text."""

_TRAILING = ".,;:!?'\""
_DEFAULT_PORTS = {"http": 80, "https": 443}
_TRACKING_PREFIXES = ("utm_",)
_TRACKING_NAMES = frozenset({"fbclid", "gclid", "mc_cid", "mc_eid"})


def _trim(url: str) -> str:
    """Drop trailing punctuation and unbalanced closing brackets from a matched URL."""
    end = len(url)
    opens, closes = url.count("("), url.count(")")
    while end > 0:
        last = url[end - 1]
        if last in _TRAILING:
            end -= 1
        elif last == ")" and opens < closes:
            closes -= 1
            end -= 1
        else:
            break
    return url[:end]


def find_urls(text: str) -> list[str]:
    """The http(s) URLs in ``text``, in order of appearance (duplicates kept)."""
    found: list[str] = []
    if "://" not in text:
        return found
    for match in _URL.finditer(text):
        url = _trim(match.group(0))
        if len(url) > len("https://"):
            found.append(url)
    return found


def find_markdown_links(text: str) -> list[tuple[str, str]]:
    """``(title, url)`` for each markdown link ``[title](url)`` in ``text``."""
    if "://" not in text:
        return []
    return [(m.group(1).strip(), _trim(m.group(2))) for m in _MARKDOWN_LINK.finditer(text)]


def canonical_url(url: str) -> str:
    """The form of ``url`` used to deduplicate sources.

    Lower-cases the scheme and host, drops default ports, the fragment, tracking
    parameters (``utm_*``, ``gclid``...) and a trailing slash, and sorts the query.
    """
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = host if port in (None, _DEFAULT_PORTS.get(scheme)) else f"{host}:{port}"
    if parts.username:
        netloc = f"{parts.username}@{netloc}"
    path = parts.path.rstrip("/") or "/"
    query = [
        (k, v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
        if not k.lower().startswith(_TRACKING_PREFIXES) and k.lower() not in _TRACKING_NAMES
    ]
    return urlunsplit((scheme, netloc, path, urlencode(sorted(query)), ""))


@dataclass(slots=True)
class Citation:
    """One source: its 1-based ``index``, the URL as first seen, title and metadata."""

    index: int
    url: str
    canonical: str
    title: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """A short label: the title, else host and path."""
        if self.title:
            return self.title
        parts = urlsplit(self.url)
        return (parts.netloc + parts.path).rstrip("/") or self.url


class CitationIndex:
    """Numbered sources, 1-based and deduplicated by `canonical_url`.

    Several agents may share one index (pass it to each
    [`CitationManager`][good_agent.CitationManager]):
    a URL keeps its number everywhere. [`export`][good_agent.CitationIndex.export] and
    [`restore`][good_agent.CitationIndex.restore] round-trip it
    through plain JSON data.
    """

    def __init__(self) -> None:
        self._entries: list[Citation] = []
        self._by_canonical: dict[str, Citation] = {}
        self.version = 0
        """Incremented whenever a source is added or changed."""

    def add(
        self, url: str, *, title: str | None = None, metadata: Mapping[str, Any] | None = None
    ) -> int:
        """Register ``url`` (or find it) and return its index.

        A known URL keeps its index; a title or metadata keys given later fill in
        what is not known yet (known values are kept).
        """
        key = canonical_url(url)
        entry = self._by_canonical.get(key)
        if entry is None:
            entry = Citation(len(self._entries) + 1, url, key, title, dict(metadata or {}))
            self._entries.append(entry)
            self._by_canonical[key] = entry
            self.version += 1
            return entry.index
        if title and not entry.title:
            entry.title = title
            self.version += 1
        fresh = {k: v for k, v in (metadata or {}).items() if k not in entry.metadata}
        if fresh:
            entry.metadata.update(fresh)
            self.version += 1
        return entry.index

    def get(self, index: int) -> Citation:
        """The source numbered ``index``; `KeyError` if there is none."""
        if isinstance(index, bool) or not 1 <= index <= len(self._entries):
            raise KeyError(index)
        return self._entries[index - 1]

    def get_url(self, index: int) -> str | None:
        """The URL of the source numbered ``index``, or ``None`` if there is none
        ([`get`][good_agent.CitationIndex.get] raises `KeyError` instead)."""
        if isinstance(index, bool) or not 1 <= index <= len(self._entries):
            return None
        return self._entries[index - 1].url

    def index_of(self, url: str) -> int | None:
        """The index of ``url`` (compared canonically), or ``None``."""
        entry = self._by_canonical.get(canonical_url(url))
        return entry.index if entry else None

    def valid_range(self) -> str:
        """The valid indices in words, for messages to the model."""
        count = len(self._entries)
        if count == 0:
            return "none (no sources are registered yet)"
        return ", ".join(str(i) for i in range(1, count + 1)) if count <= 20 else f"1 to {count}"

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[Citation]:
        return iter(list(self._entries))

    def __contains__(self, url: object) -> bool:
        return isinstance(url, str) and canonical_url(url) in self._by_canonical

    def sources_text(self, *, show_urls: bool = False) -> str:
        """The sources list the model reads: ``[n] label`` per line."""
        lines = []
        for entry in self._entries:
            line = f"[{entry.index}] {entry.label}"
            if show_urls:
                line += f" <{entry.url}>"
            lines.append(line)
        return "\n".join(lines)

    def replace_urls(self, text: str) -> str:
        """Replace every registered URL in ``text`` with its ``[n]`` reference.

        Markdown links to registered URLs, ``[title](url)``, become ``title [n]``.
        """
        if "://" not in text:
            return text  # every URL the patterns match has one

        def link(match: re.Match[str]) -> str:
            index = self.index_of(_trim(match.group(2)))
            if index is None:
                return match.group(0)
            title = match.group(1).strip()
            return f"[{index}]" if title in (f"[{index}]", str(index)) else f"{title} [{index}]"

        def bare(match: re.Match[str]) -> str:
            raw = match.group(0)
            url = _trim(raw)
            index = self.index_of(url)
            return raw if index is None else f"[{index}]{raw[len(url) :]}"

        return _URL.sub(bare, _MARKDOWN_LINK.sub(link, text))

    def render_markdown(self, text: str, *, style: str = "inline") -> str:
        """Turn the ``[n]`` references in ``text`` into markdown links.

        ``style="inline"`` writes ``[[n]](url)``; ``style="reference"`` keeps ``[n]``
        and appends reference definitions (``[n]: url "title"``) for the cited sources.
        Numbers with no source are left alone.
        """
        if style not in ("inline", "reference"):
            raise ValueError(f"style must be 'inline' or 'reference', not {style!r}")
        cited: list[Citation] = []

        def link(match: re.Match[str]) -> str:
            number = int(match.group(1))
            if not 1 <= number <= len(self._entries):
                return match.group(0)
            entry = self._entries[number - 1]
            if entry not in cited:
                cited.append(entry)
            return f"[[{number}]]({entry.url})" if style == "inline" else match.group(0)

        body = _REFERENCE.sub(link, text)
        if style == "inline" or not cited:
            return body
        defs = []
        for entry in sorted(cited, key=lambda e: e.index):
            title = (entry.title or "").replace('"', "'")
            suffix = f' "{title}"' if title else ""
            defs.append(f"[{entry.index}]: {entry.url}{suffix}")
        return body.rstrip() + "\n\n" + "\n".join(defs)

    def export(self) -> dict[str, Any]:
        """The index as JSON-compatible data (see [`restore`][good_agent.CitationIndex.restore])."""
        return {
            "version": 1,
            "sources": [
                {"index": e.index, "url": e.url, "title": e.title, "metadata": dict(e.metadata)}
                for e in self._entries
            ],
        }

    @classmethod
    def restore(cls, data: Mapping[str, Any]) -> CitationIndex:
        """Rebuild an index from [`export`][good_agent.CitationIndex.export] data, same numbers."""
        index = cls()
        for position, item in enumerate(data.get("sources", []), start=1):
            if item.get("index", position) != position:
                raise ValueError(f"sources must be numbered 1..n in order; got {item!r}")
            if index.add(item["url"], title=item.get("title"), metadata=item.get("metadata")) != (
                position
            ):
                raise ValueError(f"duplicate source in exported index: {item['url']!r}")
        return index
