"""The generated `.pyi` spells the config model's real annotations, and mypy checks mount
calls against it."""

from __future__ import annotations

import enum
import sys
from pathlib import Path
from typing import Literal

import pytest
from mypy import api as mypy_api
from pydantic import BaseModel

from eve_build.extension.build import build_extension
from eve_build.output.stubs import StubWriter, derive_stub_parameters
from tests.conftest import FIXTURES, copy_fixture_tree


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Inner(BaseModel):
    depth: int
    note: str | None = None


@pytest.mark.parametrize(("annotation", "spelled"), [
    (str, "str"),
    (int | None, "int | None"),
    (list[str], "list[str]"),
    (dict[str, list[int]], "dict[str, list[int]]"),
    (tuple[int, ...], "tuple[int, ...]"),
    (Literal["a", "b"], "Literal['a', 'b']"),
    (Colour, "Literal['red', 'blue']"),
    (Path, "Any"),
])
def test_annotations_are_spelled(annotation: object, spelled: str) -> None:
    assert StubWriter().spell(annotation) == spelled


def test_a_nested_model_becomes_a_typed_dict() -> None:
    writer = StubWriter()

    assert writer.spell(list[Inner]) == "list[Inner]"
    assert writer.typed_dicts["Inner"] == (
        "class Inner(TypedDict):\n    depth: int\n    note: NotRequired[str | None]")


def test_required_parameters_come_first_and_all_accept_env() -> None:
    class Config(BaseModel):
        region: Colour = Colour.RED
        key: str

    assert derive_stub_parameters(Config, StubWriter()) == (
        "*, key: str | Env, region: Literal['red', 'blue'] | Env = ...")


GOOD = """\
from eve_build.sdk import env
from typed_config import typed_config

mount = typed_config(api_key=env("KEY"), units="imperial", retry={"attempts": 3},
                     cities=["Oslo"], weights={"a": 1.0}, label=None)
"""
BAD = """\
from typed_config import typed_config

mount = typed_config(api_key="k", units="kelvin", retry={"backoff": 1.0}, cities="Oslo")
"""


def _mypy(tmp_path: Path, name: str, text: str) -> tuple[str, int]:
    source = tmp_path / name
    source.write_text(text)
    limit = sys.getrecursionlimit()  # mypy raises it for the whole process: put it back
    try:
        out, err, status = mypy_api.run([
            "--strict", "--no-incremental", "--cache-dir", str(tmp_path / ".mypy_cache"),
            "--python-version", "3.11", "--no-error-summary", str(source)])
    finally:
        sys.setrecursionlimit(limit)
    assert "Traceback" not in err
    return out, status


def test_mypy_checks_mount_calls_against_the_stub(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    root = copy_fixture_tree(FIXTURES / "extensions" / "typed-config", tmp_path / "ext")
    build_extension(root)
    monkeypatch.setenv("MYPYPATH", str(root / "build" / "eve"))

    good, status = _mypy(tmp_path, "good.py", GOOD)
    assert (good, status) == ("", 0)

    bad, status = _mypy(tmp_path, "bad.py", BAD)
    assert status == 1
    assert '"units" to "typed_config" has incompatible type "Literal[\'kelvin\']"' in bad
    assert '"retry" to "typed_config" has incompatible type "dict[str, float]"' in bad
    assert '"cities" to "typed_config" has incompatible type "str"' in bad
