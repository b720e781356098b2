"""Problems worded from the library's evaluation output, the cheaper of its two.

``jsonschema_rs`` lists a value's errors two ways: ``iter_errors`` (error objects,
with ``anyOf``/``oneOf`` failures nested by branch) and ``evaluate().errors()``
(flat dicts of JSON pointers, about half the cost). This module words the second
exactly as ``schema_validation`` words the first, from a plan worked out once per
schema location (`Place`): what the keyword there asks, its rank, and, inside
an ``anyOf``/``oneOf`` branch, which branch and how far below the combinator's value
the error sits.

The flat output does not carry everything the nested one does, so
`word_evaluation` answers None (and the caller words ``iter_errors``) when:

* a location is not planned here: a keyword without a wording of its own, a ``oneOf``
  that more than one branch matched, a branch inside a branch, ``patternProperties``
  beside an ``additionalProperties: false`` that failed;
* a missing or unexpected field is told together with another error of the same
  object or inside it (the two outputs list those in different orders).

A ``$ref`` inside an ``anyOf``/``oneOf`` branch would hide the branch (the library
gives the referenced location), so before compiling `inline_branch_refs`
replaces it by what it names; where that cannot be done (a recursive schema),
`locations_tell` says no for the whole schema.
"""

from __future__ import annotations

import json
from typing import Any

from good_agent.providers.schema_words import BOUNDS, describe, kind_of, path_text, rank

# How a planned error is worded (``Place.code``).
_GIVEN, _TYPE, _REQUIRED, _UNEXPECTED, _NOT, _FIXED = range(6)
_FIXED_TEXT = {"falseSchema": "no value is allowed here", "uniqueItems": "items must be unique"}
_BRANCHING = frozenset({"anyOf", "oneOf"})
_NAMED = frozenset({"properties", "$defs", "definitions"})
_NUMBERED = frozenset({"allOf", "prefixItems", *_BRANCHING})
_ITEM_STEP = frozenset({"properties", "prefixItems"})


class Place:
    """What one schema location says when it fails, worked out once."""

    __slots__ = ("branch", "branches", "code", "group", "rank", "steps", "text")

    def __init__(self, code: int, keyword: str, text: Any) -> None:
        self.code = code
        self.rank = rank(keyword)
        self.text = text
        self.group = ""  # the location of the anyOf/oneOf this is a branch of, if any
        self.branch = 0  # which branch
        self.branches = 0  # of how many
        self.steps = 0  # instance steps from that anyOf/oneOf's value down to this error


def inline_branch_refs(schema: Any) -> Any:
    """``schema`` with each ``$ref`` inside an ``anyOf``/``oneOf`` branch replaced by
    what it names (a copy, checked the same), so that the library's locations show
    the branch. A ``$ref`` beside other keywords, one reached again while it is being
    replaced (a recursive schema) or past `_INLINE_LIMIT` nodes is left as it is
    (then `locations_tell` says no)."""
    budget = [_INLINE_LIMIT]
    return _inline(schema, schema, False, (), budget)


_INLINE_LIMIT = 5_000


def _inline(
    node: Any, root: Any, inside: bool, open_refs: tuple[str, ...], budget: list[int]
) -> Any:
    if isinstance(node, list):
        return [_inline(item, root, inside, open_refs, budget) for item in node]
    if not isinstance(node, dict):
        return node
    budget[0] -= 1
    ref = node.get("$ref")
    if inside and len(node) == 1 and isinstance(ref, str) and ref not in open_refs:
        target = resolve(root, ref)
        if budget[0] > 0 and target is not None:
            return _inline(target, root, True, (*open_refs, ref), budget)
    return {
        key: _inline(child, root, inside or key in _BRANCHING, open_refs, budget)
        for key, child in node.items()
    }


def resolve(root: Any, ref: str) -> Any:
    """What a local ``$ref`` (``#``, ``#/$defs/...``) names in ``root``, or None."""
    if not ref.startswith("#"):
        return None
    node = root
    for part in [p for p in ref[1:].split("/") if p]:
        key = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def locations_tell(schema: Any) -> bool:
    """Whether every error location the library gives for ``schema`` shows the
    ``anyOf``/``oneOf`` branch it is in (no ``$ref`` inside a branch or into one)."""
    return not _ref_in_branch(schema, inside=False)


def _ref_in_branch(node: Any, inside: bool) -> bool:
    if isinstance(node, list):
        return any(_ref_in_branch(item, inside) for item in node)
    if not isinstance(node, dict):
        return False
    ref = node.get("$ref")
    if isinstance(ref, str) and (inside or "anyOf" in ref or "oneOf" in ref):
        return True
    return any(_ref_in_branch(child, inside or key in _BRANCHING) for key, child in node.items())


def plan(schema: Any, location: str) -> Place | None:
    """The plan for an error at ``location`` (a JSON pointer into ``schema``, with
    ``$ref`` already followed), or None when it is not worded here."""
    raw = location.split("/")
    parts = [p.replace("~1", "/").replace("~0", "~") for p in raw[1:]]
    node: Any = schema
    parent: Any = None
    keyword = ""
    i, steps, group, branch, branches = 0, 0, "", 0, 0
    try:
        while i < len(parts):
            part, last = parts[i], i == len(parts) - 1
            if part in _NAMED or part in _NUMBERED:
                if last:
                    return None  # a oneOf that more than one branch matched
                key: Any = parts[i + 1] if part in _NAMED else int(parts[i + 1])
                if part in _BRANCHING:
                    if group:
                        return None  # a branch inside a branch
                    group, branch, branches, steps = "/".join(raw[: i + 2]), key, len(node[part]), 0
                node = node[part][key]
                steps += part in _ITEM_STEP
                i += 2
            elif part == "items" or (part == "additionalProperties" and not last):
                node, steps, i = node[part], steps + 1, i + 1
            elif last:
                keyword, parent, node, i = part, node, node[part], i + 1
            else:
                return None
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    if keyword == "additionalProperties" and not {"properties", "patternProperties"} & set(parent):
        keyword = "falseSchema"  # as the library tells it (of the whole object)
    elif not keyword:
        if node is not False:
            return None
        keyword = "falseSchema"
    place = _place(keyword, node, parent)
    if place is not None:
        place.group, place.branch, place.branches, place.steps = group, branch, branches, steps
    return place


def _place(keyword: str, node: Any, parent: Any) -> Place | None:
    if keyword == "type":
        names = [node] if isinstance(node, str) else node
        return Place(_TYPE, keyword, f"expected {' or '.join(names)}, got ")
    if keyword == "enum":
        return Place(_GIVEN, keyword, f"expected one of {', '.join(map(describe, node))}, got ")
    if keyword == "const":
        return Place(_GIVEN, keyword, f"expected {describe(node)}, got ")
    if keyword in BOUNDS:
        return Place(_GIVEN, keyword, f"must be {BOUNDS[keyword].format(node)}, got ")
    if keyword in _FIXED_TEXT:
        return Place(_FIXED, keyword, _FIXED_TEXT[keyword])
    if keyword == "not":
        return Place(_NOT, keyword, "")
    if keyword == "required":  # the library's message names the field as JSON
        names = {f"{json.dumps(n, ensure_ascii=False)} is a required property": n for n in node}
        return Place(_REQUIRED, keyword, names)
    if keyword == "additionalProperties" and "patternProperties" not in parent:
        known = parent.get("properties") or {}
        words = f"unexpected field (allowed: {', '.join(known) or 'none'})"
        return Place(_UNEXPECTED, keyword, (words, known))
    return None


_UNSEEN = Place(_FIXED, "", "")


def word_evaluation(
    library: Any, schema: Any, places: dict[str, Place | None], value: Any
) -> list[str] | None:
    """The problems with ``value`` (JSON, known invalid) worded from ``library``'s
    evaluation output, or None when they are to be worded from ``iter_errors``.
    ``places`` holds the plans of ``schema``'s locations met so far."""
    items: list[tuple[str, int, Any]] = []
    group, branch = ("", ""), 0
    branches: dict[int, list[tuple[str, int, Any]]] = {}
    objects: list[tuple[str, Place]] = []
    errors = library.evaluate(value).errors()
    for error in errors:
        location = error["schemaLocation"]
        place = places.get(location, _UNSEEN)
        if place is _UNSEEN:
            place = places[location] = plan(schema, location)
        if place is None:
            return None
        pointer, order, entry = error["instanceLocation"], place.rank, place
        if order == 4:
            objects.append((pointer, place))
            if place.code == _REQUIRED:  # one error per missing field
                text = error["error"]
                entry = place.text.get(text) or json.loads(text[: text.rindex(" is a ")])
        if not place.group:
            items.append((pointer, order, entry))
            continue
        # A branch's errors come together; a lower branch number starts another
        # check of the same anyOf/oneOf (one reached twice through a $ref).
        at = pointer.rsplit("/", place.steps)[0] if place.steps else pointer
        key = (place.group, at)
        if key != group or place.branch < branch:
            branches = {}
            items.append((at, 2, (place.branches, branches)))
        group, branch = key, place.branch
        branches.setdefault(branch, []).append((pointer, order, entry))
    if objects and _shared(objects, errors, places):
        return None
    return _say(items, value)


def _shared(
    objects: list[tuple[str, Place]], errors: list[dict[str, Any]], places: dict[str, Place | None]
) -> bool:
    """Whether an error of another location is at or inside the place of one of
    ``objects`` (a missing or unexpected field's error), other than one of another
    branch of the same anyOf/oneOf (each branch is worded on its own)."""
    for pointer, place in objects:
        inner = f"{pointer}/"
        for error in errors:
            other = places[error["schemaLocation"]]
            if other is None or other is place:
                continue
            if place.group and other.group == place.group and other.branch != place.branch:
                continue
            there = error["instanceLocation"]
            if there == pointer or there.startswith(inner):
                return True
    return False


def _say(items: list[tuple[str, int, Any]], value: Any) -> list[str]:
    """The words for errors given as (pointer, rank, entry); of the errors at one
    place, only those of the first rank are told."""
    if len(items) > 1 and len({item[0] for item in items}) < len(items):
        best: dict[str, int] = {}
        kept: list[tuple[str, int, Any]] = []
        for item in items:
            pointer, order = item[0], item[1]
            if pointer in best and best[pointer] < order:
                continue
            if best.get(pointer, order) > order:
                kept = [k for k in kept if k[0] != pointer]
            best[pointer] = order
            kept.append(item)
        items = kept
    out: list[str] = []
    for pointer, _, entry in items:
        where, at, given = located(value, pointer)
        kind = type(entry)
        if kind is str:  # a missing field's name
            out.append(f"{path_text((*where, entry))}: field required")
        elif kind is tuple:  # the branches of an anyOf/oneOf
            count, branches = entry
            first = _say(branches[min(branches)], value)
            if count == 1:
                out.extend(first)
            else:
                out.append(
                    f"{at}: {describe(given)} matches none of the allowed forms ({first[0]})"
                )
        elif entry.code == _TYPE:
            out.append(f"{at}: {entry.text}{kind_of(given)} {describe(given)}")
        elif entry.code == _GIVEN:
            out.append(f"{at}: {entry.text}{describe(given)}")
        elif entry.code == _UNEXPECTED:
            words, known = entry.text
            out.extend(f"{path_text((*where, k))}: {words}" for k in given if k not in known)
        elif entry.code == _NOT:
            out.append(f"{at}: {describe(given)} is not allowed here")
        else:
            out.append(f"{at}: {entry.text}")
    return out


_ARRAY = (list, tuple)
_POINTERS: dict[str, tuple[tuple[Any, ...], str]] = {"": ((), "arguments")}
_POINTERS_SIZE = 4_096


def located(value: Any, pointer: str) -> tuple[tuple[Any, ...], str, Any]:
    """The place a JSON pointer names in ``value`` (each step typed as in ``value``:
    an array index is an int, an object key a string even when it looks like a
    number), that place as text, and the value there."""
    try:  # as the pointer was read last time: right unless the value differs in type
        where, text = _POINTERS[pointer]
        given = value
        for key in where:
            given = given[key]
        return where, text, given
    except (KeyError, IndexError, TypeError):
        pass
    steps: list[Any] = []
    for step in pointer[1:].split("/"):
        part: Any = step.replace("~1", "/").replace("~0", "~") if "~" in step else step
        if isinstance(value, _ARRAY):
            part = int(part)
        steps.append(part)
        value = value[part]
    where = tuple(steps)
    text = path_text(where)
    if len(_POINTERS) < _POINTERS_SIZE:
        _POINTERS[pointer] = (where, text)
    return where, text, value
