"""Generated: what a node or another process can put in front of the host (issue 23).

A `describe` result is validated or refused (`DescriptionError`), never a TypeError
later; a validated one always builds proxies. A pid file of any bytes proves no
process to be the node when none runs, so nothing is ever signalled.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from eve_build.node.client import NodeClient
from eve_build.node.description import DescriptionError, parse_description
from eve_build.node.liveness import clean_stale, read_pid
from eve_build.node.paths import NodePaths, ensure_run_dir

SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=10), inner, max_size=3), max_leaves=12)
TOOL = st.fixed_dictionaries({"name": JSON | st.text(max_size=20)}, optional={
    "description": JSON, "inputSchema": JSON | st.just({"type": "object"}),
    "timeout": JSON | st.floats(min_value=0.01, max_value=100)})
COMMAND = st.fixed_dictionaries({"name": JSON | st.text(max_size=20)},
                                optional={"description": JSON, "argHint": JSON})
LISTS = {"tools": st.lists(TOOL, max_size=3) | JSON,
         "commands": st.lists(COMMAND, max_size=2) | JSON,
         "guidelines": st.lists(st.text(max_size=10), max_size=2) | JSON,
         "hooks": st.lists(st.sampled_from(["action.call", "x"]), max_size=2) | JSON,
         "events": st.lists(st.text(max_size=10), max_size=2) | JSON}
DESCRIPTIONS = JSON | st.fixed_dictionaries(
    {"protocol": st.just(1) | JSON, **LISTS})


@given(description=DESCRIPTIONS)
@example(description={"protocol": 1, "tools": [{"name": "t", "inputSchema": True}],
                      "commands": [], "guidelines": [], "hooks": [], "events": []})
@example(description={"protocol": 1, "commands": [{"name": "c"}], "guidelines": ["g"],
                      "tools": [{"name": "t", "inputSchema": {"type": "object"}, "timeout": 5}],
                      "hooks": ["action.call"], "events": []}).via("a good one")
@example(description={"protocol": True, "tools": [], "commands": [], "guidelines": [],
                      "hooks": [], "events": []})
def test_a_description_is_checked_or_refused(description: Any) -> None:
    try:
        checked = parse_description(description)
    except DescriptionError as exc:
        assert str(exc) and len(str(exc)) < 400
        return
    spec = NodeClient("n", Path("/nonexistent.sock"), checked).spec()
    assert sorted(spec.tools) == sorted({str(t["name"]) for t in checked["tools"]})
    for item in checked["tools"]:
        tool = spec.tools[item["name"]]
        assert tool.input is not None
        assert tool.input.model_json_schema() == item["inputSchema"]
        assert tool.timeout is not None and 0 < tool.timeout <= 1_000_000


@given(content=st.binary(max_size=200) | st.text(max_size=200).map(str.encode)
       | st.integers().map(lambda n: str(n).encode()))
@example(content=b"-1").via("kill(-1) signals every process of the user")
@example(content=b'{"pid": 1, "name": "n"}').via("init")
def test_any_pid_file_proves_nothing_when_no_node_runs(content: bytes) -> None:
    home = Path(tempfile.mkdtemp(prefix="eve-pid-"))
    paths = NodePaths(home, "n")
    ensure_run_dir(home)
    paths.pid_file.write_bytes(content)
    assert read_pid(paths) is None
    assert clean_stale(paths) is True and not paths.pid_file.exists()
