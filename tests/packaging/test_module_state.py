"""Process-wide mutable state is limited to registries of definitions.

Every module of ``good_agent`` is parsed with ``ast``. A module-level name bound to a
mutable container (a dict, set or list literal or comprehension, or a call of
``dict``, ``set``, ``defaultdict``, ``OrderedDict``, ``WeakSet``...) is state when it
starts empty (it exists to be filled) or when any module of the package changes it
(``NAME[k] = v``, ``del NAME[k]``, ``NAME.add(...)``, ``NAME |= ...``, a ``global``
rebinding...). Such a name must be in :data:`ALLOWED`, a registry of definitions or a
memo cache of a pure function, each with the reason it is one. A table written once
and only read (``STOP_REASONS = {...}``) is a constant and needs no entry. Runtime
decisions (a learned fallback, calls in flight, a server's secrets, warn-once sets)
belong to the object that makes them (see docs/architecture.md).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import good_agent

PACKAGE = Path(good_agent.__file__).parent

ALLOWED: dict[tuple[str, str], str] = {
    ("_util/awaitable.py", "_BY_TYPE"): "memo of a pure function keyed by type",
    ("adapters/_adapter.py", "_TAKES_CTX"): "memo of a pure function keyed by class and hook",
    ("core/redaction.py", "_SUBCLASSES"): "weak memo of the redacting subclass of each class",
    ("core/specs.py", "_RESOLVERS"): "registry of spec resolvers",
    ("extensions/auth.py", "_WARNED_STORES"): "weak warn-once set per store, shared by caches",
    ("models/registry.py", "MODEL_FACTORIES"): "registry of model factories per provider",
    ("providers/registry.py", "_VENDORS"): "the registry of vendors (descriptors)",
    ("providers/registry.py", "_BY_PROVIDER"): "the registry's index of vendors by provider",
    ("providers/registry.py", "_CODECS"): "the registry's codecs by name",
    ("providers/schema/strict.py", "_RESULTS"): "bounded memo of strict tool schemas, by content",
    ("providers/schema_evaluation.py", "_POINTERS"): "bounded memo of JSON pointers read",
    ("providers/schema_validation.py", "_CACHE"): "bounded memo of compiled validators",
    ("providers/text/registry.py", "_REGISTRY"): "registry of text formats (parsers)",
    ("server/tool_schemas.py", "_ACCEPTED"): "bounded memo of tool schemas found valid",
    ("testing/scripted.py", "_CONTAINERS"): "memo of a pure function keyed by message class",
}
"""Module-level mutable state that is allowed, by module and name, with its reason."""

CONTAINER_CALLS = {
    "dict",
    "set",
    "list",
    "bytearray",
    "defaultdict",
    "OrderedDict",
    "deque",
    "Counter",
    "ChainMap",
    "WeakSet",
    "WeakKeyDictionary",
    "WeakValueDictionary",
    "fromkeys",
}
LITERALS = (ast.Dict, ast.Set, ast.List, ast.DictComp, ast.SetComp, ast.ListComp)
MUTATORS = {
    "add",
    "append",
    "clear",
    "discard",
    "extend",
    "insert",
    "move_to_end",
    "pop",
    "popitem",
    "remove",
    "setdefault",
    "update",
}


def is_container(value: ast.expr) -> bool:
    """Whether ``value`` builds a mutable container."""
    if isinstance(value, LITERALS):
        return True
    if isinstance(value, ast.Call):
        func = value.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        return name in CONTAINER_CALLS
    return False


def is_empty(value: ast.expr) -> bool:
    """Whether ``value`` builds an empty container (``{}``, ``set()``, ``WeakSet()``...)."""
    if isinstance(value, ast.Dict):
        return not value.keys
    if isinstance(value, (ast.Set, ast.List)):
        return not value.elts
    return isinstance(value, ast.Call) and not value.args and not value.keywords


def top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements run at import, inside module-level ``if`` and ``try`` too."""
    for statement in body:
        yield statement
        if isinstance(statement, (ast.If, ast.Try)):
            yield from top_level(statement.body)
            yield from top_level(statement.orelse)
        if isinstance(statement, ast.Try):
            yield from top_level(statement.finalbody)
            for handler in statement.handlers:
                yield from top_level(handler.body)


def containers(tree: ast.Module) -> Iterator[tuple[str, ast.expr, int]]:
    """Module-level names bound to mutable containers: name, value, line."""
    for statement in top_level(tree.body):
        if isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets, value = [statement.target], statement.value
        else:
            continue
        if not is_container(value):
            continue
        for target in targets:
            if isinstance(target, ast.Name) and target.id != "__all__":
                yield target.id, value, statement.lineno


def named(node: ast.expr) -> str | None:
    """The name ``node`` refers to: ``NAME`` or ``module.NAME``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def changed_names(tree: ast.Module) -> set[str]:
    """Names this module changes in place or rebinds as globals."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            found.update(node.names)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                if isinstance(target, ast.Subscript):
                    found.add(named(target.value) or "")
                elif isinstance(node, ast.AugAssign):
                    found.add(named(target) or "")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in MUTATORS
        ):
            found.add(named(node.func.value) or "")
    return found


def modules() -> dict[str, ast.Module]:
    """Every module of the package, parsed, by path inside it."""
    return {
        path.relative_to(PACKAGE).as_posix(): ast.parse(path.read_text("utf-8"))
        for path in sorted(PACKAGE.rglob("*.py"))
    }


def module_state(parsed: dict[str, ast.Module]) -> dict[tuple[str, str], str]:
    """The module-level containers that are state, with why each one is."""
    changed: set[str] = set()
    for tree in parsed.values():
        changed |= changed_names(tree)
    state: dict[tuple[str, str], str] = {}
    for where, tree in parsed.items():
        for name, value, line in containers(tree):
            if is_empty(value):
                state[(where, name)] = f"line {line}: starts empty"
            elif name in changed:
                state[(where, name)] = f"line {line}: changed after import"
    return state


def test_module_level_mutable_state_is_only_registries_of_definitions() -> None:
    state = module_state(modules())
    unexplained = {key: why for key, why in state.items() if key not in ALLOWED}
    assert not unexplained, (
        "module-level mutable state that is not a registry of definitions; keep it in "
        f"the object that owns it, or allow-list it with a reason: {unexplained}"
    )
    stale = sorted(set(ALLOWED) - set(state))
    assert not stale, f"allow-listed names that are no longer module state: {stale}"


def test_the_check_sees_state_and_lets_constants_be() -> None:
    source = """
import weakref
from collections import defaultdict
TABLE = {"stop": "end_turn"}
FILLED = {"a": 1}
_SEEN: set[str] = set()
_WEAK = weakref.WeakSet()
_COUNTS = defaultdict(int)
if True:
    _LATE = []
def remember(key):
    FILLED[key] = 2
    _COUNTS[key] += 1
"""
    state = module_state({"m.py": ast.parse(source)})
    assert set(state) == {
        ("m.py", name) for name in ("FILLED", "_SEEN", "_WEAK", "_COUNTS", "_LATE")
    }
    changed = "def f():\n    global X\n    X = 1\nX = {'a': 1}\nY = {'b': 2}\nY.update(c=3)\n"
    assert set(module_state({"n.py": ast.parse(changed)})) == {("n.py", "X"), ("n.py", "Y")}
