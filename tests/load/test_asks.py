"""`ctx.ask(..., schema=Model)` refused at build time when the model it names is not a
flat model of askable fields; at the call's line, with the field and the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from eve_build.errors import DiagnosticsError
from eve_build.extension.build import build_extension
from tests.conftest import FIXTURES, copy_fixture_tree

TOOL = '''\
from __future__ import annotations

from pydantic import BaseModel

from eve_build.sdk import define_tool


class SearchInput(BaseModel):
    query: str


class Where(BaseModel):
    city: str


class Ask(BaseModel):
    {field}


async def run(input, ctx):
    answer = await ctx.ask("which one?", schema=Ask)
    return {{"got": answer.model_dump()}}


tool = define_tool(description="Search.", input=SearchInput, execute=run)
'''


def _extension(tmp_path: Path, field: str) -> Path:
    root = copy_fixture_tree(FIXTURES / "extensions" / "bad" / "tool-input-missing",
                             tmp_path / "ext")
    (root / "extension" / "tools" / "search.py").write_text(TOOL.format(field=field))
    return root


@pytest.mark.parametrize(("field", "reason"), [
    ("where: Where", "the field `where` of `Ask` is a nested model (`Where`)"),
    ("tags: list[str]", "the field `tags` of `Ask` is `list[str]`"),
    ("either: int | str", "the field `either` of `Ask` is a union"),
])
def test_a_question_schema_that_is_not_flat_fails_the_build(tmp_path: Path, field: str,
                                                            reason: str) -> None:
    with pytest.raises(DiagnosticsError) as caught:
        build_extension(_extension(tmp_path, field))

    [diagnostic] = caught.value.diagnostics
    assert (diagnostic.code, diagnostic.file, diagnostic.line) == (
        "tool/ask-schema-invalid", "extension/tools/search.py", 21)
    assert diagnostic.message.startswith(f"`ctx.ask` cannot ask with this schema: {reason}")


@pytest.mark.parametrize("field", ["name: str", "count: int | None = None",
                                   'kind: Literal["a", "b"] = "a"'])
def test_a_flat_question_schema_builds(tmp_path: Path, field: str) -> None:
    root = _extension(tmp_path, field)
    source = root / "extension" / "tools" / "search.py"
    source.write_text(source.read_text().replace(
        "from pydantic import BaseModel", "from typing import Literal\n\nfrom pydantic import "
        "BaseModel"))

    assert list(build_extension(root).warnings) == []
