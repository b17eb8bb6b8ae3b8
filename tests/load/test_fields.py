"""Field-level problems of models, reported at the field's line: an undefined name in a
field type (error, with a did-you-mean) and a default that fails its own field (warning)."""

from __future__ import annotations

from pathlib import Path

import pytest

from eve_build.errors import DiagnosticsError
from eve_build.extension.build import build_extension
from tests.conftest import FIXTURES, copy_fixture_tree


def _extension(tmp_path: Path, tool_source: str) -> Path:
    root = copy_fixture_tree(FIXTURES / "extensions" / "bad" / "tool-input-missing",
                             tmp_path / "ext")
    (root / "extension" / "tools" / "search.py").write_text(tool_source)
    return root


TOOL = '''\
from __future__ import annotations

from pydantic import BaseModel

from eve_build.sdk import define_tool


class SearchInput(BaseModel):
    query: str
{fields}

tool = define_tool(description="Search.", input=SearchInput, execute=lambda i, c: {{}})
'''


def test_an_undefined_field_type_is_reported_at_the_field_with_a_suggestion(
    tmp_path: Path,
) -> None:
    root = _extension(tmp_path, TOOL.format(fields="    city: strr"))

    with pytest.raises(DiagnosticsError) as caught:
        build_extension(root)

    [diagnostic] = caught.value.diagnostics
    assert (diagnostic.code, diagnostic.file, diagnostic.line) == (
        "model/name-undefined", "extension/tools/search.py", 10)
    assert diagnostic.message == ("the type of field `city` of `SearchInput` names `strr`, "
                                  "which is not defined")
    assert diagnostic.hint == "did you mean `str`?"
    assert "pydantic" not in diagnostic.render()


def test_an_undefined_name_inside_a_container_type_is_found(tmp_path: Path) -> None:
    root = _extension(tmp_path, TOOL.format(fields="    tags: list[Tagg] | None = None"))

    with pytest.raises(DiagnosticsError) as caught:
        build_extension(root)

    [diagnostic] = caught.value.diagnostics
    assert (diagnostic.line, diagnostic.hint) == (10, "import `Tagg` or define it before "
                                                      "`SearchInput`")


def test_a_default_that_fails_its_own_field_is_a_warning_at_that_field(tmp_path: Path) -> None:
    root = _extension(tmp_path, TOOL.format(fields='    units: int = "metric"\n    page: int = 1'))

    result = build_extension(root)

    [diagnostic] = result.warnings
    assert (diagnostic.code, diagnostic.file, diagnostic.line, diagnostic.is_error) == (
        "model/default-invalid", "extension/tools/search.py", 10, False)
    assert diagnostic.message.startswith(
        "the default of field `units` of `SearchInput` does not validate against the field: "
        "Input should be a valid integer")
