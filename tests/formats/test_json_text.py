"""`derive_json_text` writes exactly what `json.dumps(value, indent=2, ensure_ascii=False)`
writes: the manifest's bytes (and its golden files) do not depend on which one ran."""

from __future__ import annotations

import enum
import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eve_build.formats.json_text import derive_json_text


def standard(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


class Colour(enum.StrEnum):
    RED = "red"


class Level(enum.IntEnum):
    HIGH = 3


# every character, lone surrogates and control characters included
TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=12)
PLAIN = (st.none() | st.booleans() | st.integers() | TEXT
         | st.floats(allow_nan=True, allow_infinity=True))
# what only the fallback writes: other key types, subclasses of the plain types
ODD_KEY = st.none() | st.booleans() | st.integers() | st.floats() | st.just(Level.HIGH)
ODD = st.sampled_from([Colour.RED, Level.HIGH]) | st.builds(float, st.integers(-5, 5))


def nested(leaves: st.SearchStrategy[Any], keys: st.SearchStrategy[Any]
           ) -> st.SearchStrategy[Any]:
    return st.recursive(leaves, lambda inner: (
        st.lists(inner, max_size=5) | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(keys, inner, max_size=5)), max_leaves=40)


@settings(max_examples=400)
@given(nested(PLAIN, TEXT))
def test_plain_json_values_are_written_as_the_standard_encoder_writes_them(value: Any) -> None:
    assert derive_json_text(value) == standard(value)


@settings(max_examples=200)
@given(nested(PLAIN | ODD, TEXT | ODD_KEY))
def test_unusual_values_are_written_as_the_standard_encoder_writes_them(value: Any) -> None:
    assert derive_json_text(value) == standard(value)


@pytest.mark.parametrize("value", [
    {"a": object()},  # not JSON: TypeError
    {(1, 2): "tuple key"},  # TypeError
    [float("nan"), 10 ** 5000],  # more digits than int -> str allows: ValueError
])
def test_values_json_refuses_raise_what_json_raises(value: Any) -> None:
    with pytest.raises(Exception) as expected:
        standard(value)
    with pytest.raises(expected.type, match=re.escape(str(expected.value))):
        derive_json_text(value)


def test_a_cycle_raises_what_json_raises() -> None:
    cycle: list[Any] = []
    cycle.append({"again": cycle})
    with pytest.raises(ValueError, match="Circular reference detected"):
        derive_json_text(cycle)


def test_nesting_deeper_than_the_recursion_limit_raises_what_json_raises() -> None:
    deep: list[Any] = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(RecursionError):
        standard(deep)
    with pytest.raises(RecursionError):
        derive_json_text(deep)


def test_a_large_manifest_shape_is_written_identically() -> None:
    query = {"title": "Qu\u00e9ry \u2028", "type": "string"}
    tool = {"name": "tool_0000", "dynamic": False, "limit": 1.5e-9, "approval": None,
            "inputSchema": {"properties": {"query": query}, "required": ["query"],
                            "examples": [[], {}, [{}]]}}
    value = {"contributions": {"tools": [dict(tool, name=f"tool_{n:04d}") for n in range(300)]}}
    assert derive_json_text(value) == standard(value)


def test_fragments_encoded_apart_are_indented_where_they_stand() -> None:
    record = {"name": "greet", "input": {"type": "object", "required": ["q\nx"]}, "n": [1.5]}
    value = {"contributions": {"tools": [record, {"empty": {}}], "deep": [[record]]}}
    fragments = {id(record): derive_json_text(record)}  # as a build worker encoded it

    text = derive_json_text(value, fragments)

    assert text == json.dumps(value, indent=2, ensure_ascii=False)
    assert derive_json_text(value, {id(record): '{\n  "x": 1\n}'}).count('"x": 1') == 2  # used
