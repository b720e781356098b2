"""A provider's tool name rule (``NameRule.is_valid``) against its plain statement:
every character in the allowed class, a length from 1 to the maximum, and, where the
rule has one, the first character in the first-character class."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from good_agent.providers.tool_names import (
    ANTHROPIC_NAMES,
    GEMINI_NAMES,
    OPENAI_NAMES,
    PERMISSIVE_NAMES,
    NameRule,
)

RULES = [OPENAI_NAMES, ANTHROPIC_NAMES, GEMINI_NAMES, PERMISSIVE_NAMES]

# Names near the edges of the rules: their alphabets, the characters just outside
# them, whitespace, and lengths around each maximum.
NAMES = st.text(alphabet="aZ09_-.:/ \t\n$é", min_size=0, max_size=70) | st.text(max_size=300)


def stated(rule: NameRule, name: str) -> bool:
    if not 1 <= len(name) <= rule.max_length:
        return False
    if not all(re.fullmatch(f"[{rule.allowed}]", char) for char in name):
        return False
    return rule.first is None or re.fullmatch(f"[{rule.first}]", name[0]) is not None


@settings(max_examples=400, deadline=None)
@given(name=NAMES)
def test_is_valid_is_the_rule_as_stated(name: str) -> None:
    for rule in RULES:
        assert rule.is_valid(name) is stated(rule, name), (rule, name)


def test_the_first_character_rule_holds_for_gemini() -> None:
    assert GEMINI_NAMES.is_valid("_a.b:c-d")
    assert not GEMINI_NAMES.is_valid("1abc")
    assert not GEMINI_NAMES.is_valid(".abc")
    assert OPENAI_NAMES.is_valid("1abc")


def test_rules_compare_by_their_fields() -> None:
    assert NameRule() == OPENAI_NAMES
    assert hash(NameRule()) == hash(OPENAI_NAMES)
    assert NameRule(first="a-z") != OPENAI_NAMES
