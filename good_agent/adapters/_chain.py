"""The agent's single adapter chain: ordering, conflict resolution and the signature cache."""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any

from good_agent.adapters._adapter import (
    AdapterConflictError,
    AdapterMetadata,
    ConflictStrategy,
    Signature,
    ToolAdapter,
    overrides,
)
from good_agent.adapters._naming import ToolNaming
from good_agent.adapters._plan import Step, ToolPlan
from good_agent.tools.tool import Tool
from good_agent.types.errors import ToolDefinitionError

_OFF = object()
"""Marks an adapter that does not apply to a tool, in the plan cache key."""


@dataclass(slots=True)
class _Applied:
    adapter: ToolAdapter
    meta: AdapterMetadata
    step: int


class AdapterChain:
    """Every tool adapter of one agent, across all its components.

    Adapters run in descending priority; equal priorities keep registration order.
    `plans` is cached and recomputed only when the tools, the adapters, an
    adapter's ``should_adapt`` decision or its ``signature_key`` change. A conflict
    error is never cached: it is raised again at every generation.
    """

    def __init__(self, agent: Any = None) -> None:
        self.agent = agent
        self._adapters: list[tuple[int, ToolAdapter]] = []
        self._sequence = itertools.count()
        self._ordered: list[ToolAdapter] = []
        self._dynamic: list[ToolAdapter] = []
        self._askers: list[tuple[Any, Any]] = []
        self.version = 0
        # (key, plans) in one attribute: a planning in another thread replaces both at once.
        self._cached: tuple[Any, dict[str, ToolPlan]] = (None, {})
        self._naming: ToolNaming | None = None

    def naming(self) -> ToolNaming:
        """The adapter that renames tools for the model (added on first use)."""
        if self._naming is None:
            self._naming = ToolNaming()
            self.add(self._naming)
        return self._naming

    @property
    def renames(self) -> bool:
        """Whether the naming adapter is on the chain."""
        return self._naming is not None

    def add(self, adapter: ToolAdapter) -> None:
        """Add ``adapter`` to the chain (no-op if already present)."""
        if any(existing is adapter for _, existing in self._adapters):
            return
        if callable(getattr(adapter, "intercept", None)):
            raise TypeError(
                f"{adapter.name} defines intercept(), which around_call(ctx, call_next) "
                "replaced: return ctx.respond(value) from around_call to answer instead "
                "of the tool (see docs/adapters.md)"
            )
        adapter.agent = self.agent
        self._adapters.append((next(self._sequence), adapter))
        self._reorder()

    def remove(self, adapter: ToolAdapter) -> None:
        """Remove ``adapter`` from the chain (no-op if absent)."""
        self._adapters = [(s, a) for s, a in self._adapters if a is not adapter]
        self._reorder()

    def _reorder(self) -> None:
        ordered = sorted(self._adapters, key=lambda item: (-item[1].priority, item[0]))
        self._ordered = [adapter for _, adapter in ordered]
        # Adapters that keep the defaults of both hooks always apply the same way, so
        # only the others need asking at every generation.
        self._dynamic = [
            a
            for a in self._ordered
            if overrides(a, "should_adapt") or overrides(a, "signature_key")
        ]
        # Per dynamic adapter, its bound hooks; ``None`` where it keeps the default.
        self._askers = [
            (
                a.should_adapt if overrides(a, "should_adapt") else None,
                a.signature_key if overrides(a, "signature_key") else None,
            )
            for a in self._dynamic
        ]
        self.version += 1

    @property
    def adapters(self) -> list[ToolAdapter]:
        """The adapters in forward order (highest priority first)."""
        return list(self._ordered)

    def plans(self, tools: Iterable[Tool], tools_version: Hashable) -> dict[str, ToolPlan]:
        """Return the plan of every tool by the name the model sees, from the cache
        when nothing has changed.

        ``tools_version`` changes whenever ``tools`` does. Raises
        `ToolDefinitionError` when two tools would reach the model
        under one name.
        """
        tool_list = tools if isinstance(tools, list) else list(tools)
        agent = self.agent
        dynamic = self._dynamic
        decisions: list[Any] = []
        if dynamic:
            askers = self._askers
            for t in tool_list:
                for should_adapt, signature_key in askers:
                    if should_adapt is not None and not should_adapt(t, agent):
                        decisions.append(_OFF)
                    else:
                        decisions.append(None if signature_key is None else signature_key(t, agent))
        key = (tools_version, self.version, decisions)
        cached_key, cached = self._cached
        if key == cached_key:
            return cached
        plans: dict[str, ToolPlan] = {}
        width = len(dynamic)
        for index, t in enumerate(tool_list):
            row = decisions[index * width : (index + 1) * width]
            off = {id(a) for a, d in zip(dynamic, row, strict=True) if d is _OFF}
            plan = self.build_plan(t, [a for a in self._ordered if id(a) not in off])
            name = plan.signature["function"]["name"]
            if name in plans:
                raise ToolDefinitionError(
                    f"two tools reach the model as '{name}' ('{plans[name].tool.name}' and "
                    f"'{t.name}'): rename one (Toolset.prefixed / Toolset.renamed)"
                )
            plans[name] = plan
        self._cached = (key, plans)
        return plans

    def build_plan(self, tool: Tool, active: list[ToolAdapter]) -> ToolPlan:
        """Resolve conflicts among ``active`` adapters and build the plan for ``tool``."""
        base = tool.signature
        current = base
        steps: list[list[tuple[ToolAdapter, AdapterMetadata]]] = []
        inputs: list[Signature] = []
        outputs: list[list[Signature]] = []
        applied: list[_Applied] = []
        for adapter in active:
            meta = adapter.analyze_transformation(tool, current)
            last = len(steps) - 1
            merge_meta = None
            if (
                adapter.conflict_strategy is ConflictStrategy.MERGE
                and steps
                and all(a.conflict_strategy is ConflictStrategy.MERGE for a, _ in steps[last])
            ):
                # What it would change if merged: judged on the group's shared input.
                merge_meta = adapter.analyze_transformation(tool, inputs[last])
            clashes = [
                a
                for a in applied
                if a.meta.touched & meta.touched
                or (
                    merge_meta is not None
                    and a.step == last
                    and a.meta.touched & merge_meta.touched
                )
            ]
            touched = meta.touched | (merge_meta.touched if merge_meta else set())
            action = self._resolve(tool, adapter, touched, clashes, last_step=last)
            if action == "skip":
                continue
            if action == "merge" and merge_meta is not None:
                group_input = inputs[last]
                steps[last].append((adapter, merge_meta))
                outputs[last].append(adapter.adapt_signature(tool, group_input, self.agent))
                leader = steps[last][0][0]
                pairs = list(zip([a for a, _ in steps[last]], outputs[last], strict=True))
                current = leader.merge_signature(group_input, pairs)
                applied.append(_Applied(adapter, merge_meta, last))
                continue
            out = adapter.adapt_signature(tool, current, self.agent)
            steps.append([(adapter, meta)])
            inputs.append(current)
            outputs.append([out])
            applied.append(_Applied(adapter, meta, len(steps) - 1))
            current = out
        frozen = tuple(
            Step(
                adapters=tuple(a for a, _ in group),
                owned=tuple(frozenset(m.touched) for _, m in group),
            )
            for group in steps
        )
        changed = current["function"].get("parameters") != base["function"].get("parameters")
        from good_agent.providers.schema_validation import compile_schema

        validator = compile_schema(current["function"].get("parameters") or {}) if changed else None
        return ToolPlan(tool=tool, signature=current, steps=frozen, validator=validator)

    @staticmethod
    def _resolve(
        tool: Tool,
        adapter: ToolAdapter,
        touched: set[str],
        clashes: list[_Applied],
        *,
        last_step: int,
    ) -> str:
        if not clashes:
            return "chain"
        for other in clashes:
            strategies = {adapter.conflict_strategy, other.adapter.conflict_strategy}
            if ConflictStrategy.EXCLUSIVE in strategies:
                raise AdapterConflictError(
                    tool.name, touched & other.meta.touched, other.adapter, adapter
                )
        for other in clashes:
            if ConflictStrategy.PRIORITY in {
                adapter.conflict_strategy,
                other.adapter.conflict_strategy,
            }:
                return "skip"
        mergeable = all(
            adapter.conflict_strategy is ConflictStrategy.MERGE
            and other.adapter.conflict_strategy is ConflictStrategy.MERGE
            and other.step == last_step
            for other in clashes
        )
        return "merge" if mergeable else "chain"
