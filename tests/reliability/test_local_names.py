"""Generated: local tool and command names of any text (issue 23 item 16).

The oracle is the naming rule written out here, not the code under test: a name is
kept exactly when it is 1-64 characters of `[a-z0-9_-]`, starts with a letter or a
digit and holds no `__`. Every other name is left out with one `local/name-invalid`
warning that quotes at most 80 characters of it, with no control character; the
load never raises and the rest of the extension stays.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from eve_build.runtime import load_agent
from tests.runtime.apps import compile_app, make_app

SCRIPT = '''\
import json
from pathlib import Path

from pydantic import BaseModel

from eve_build.sdk import Spec, define_command, define_tool

NAME = json.loads((Path(__file__).parent / "name.json").read_text())


class Nothing(BaseModel):
    pass


def setup(ctx):
    tool = define_tool(description="A tool.", input=Nothing, execute=lambda input, ctx: "ok")
    return Spec(tools={NAME: tool, "anchor": tool},
                commands={NAME: define_command(description="c", run=lambda args, ctx: "x")})
'''
RULE = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
NAMES = st.text(max_size=120) | st.text(alphabet="abcz09_-AZ \n\t\x1b.", max_size=70)


def _valid(name: str) -> bool:
    return RULE.fullmatch(name) is not None and "__" not in name


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_app(tmp_path_factory.mktemp("names-app") / "app", ["gizmo"],
                    {"extensions/gizmo.py": "from gizmo import gizmo\n\nmount = gizmo()\n"})
    compile_app(root)
    return root


@given(name=NAMES)
@example(name="ok\n").via("a trailing newline passed `re.match` with `$`")
@example(name="aa__bb").via("the reserved separator")
@example(name="x" * 100_000).via("a 100 kB name")
@example(name="a" * 64).via("the longest valid name")
def test_any_local_tool_name_is_kept_or_left_out_with_a_bounded_warning(
        compiled: Path, name: str) -> None:
    folder = Path(tempfile.mkdtemp(prefix="eve-names-"))
    (folder / "names.py").write_text(SCRIPT)
    (folder / "name.json").write_text(json.dumps(name))
    with load_agent(compiled, extensions=[folder / "names.py"]) as agent:
        [record] = [r for r in agent.local_extensions if r.name == "names"]
        assert record.status == "loaded" and "anchor" in record.tools
        warnings = [d for d in record.diagnostics if d.code == "local/name-invalid"]
        if _valid(name) and name not in ("anchor", "gizmo__spin"):
            assert name in record.tools and name in record.commands and not warnings
            assert agent.call_tool(name, {}).value == "ok"
        elif not _valid(name):
            assert name not in record.tools and name not in record.commands
            assert len(warnings) == 2  # the tool and the command
            for warning in warnings:
                assert len(warning.message) < 600
                assert CONTROL.search(warning.message) is None
                assert warning.file == str(folder / "names.py")
