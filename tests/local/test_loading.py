"""Loading local extensions: discovery, the contract, isolation and collisions.

Every bad input leaves a diagnostic naming the file, and the agent still answers a
call of its own tool (`ping`) and of the mounted one (`gizmo__spin`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.local import LocalExtension
from eve_build.runtime import Agent
from tests.local.conftest import LOCAL, place


def by_name(agent: Agent) -> dict[str, LocalExtension]:
    return {r.name: r for r in agent.local_extensions}


def assert_agent_works(agent: Agent) -> None:
    assert agent.call_tool("ping", {"text": "still"}).value == {"pong": "still"}
    assert agent.call_tool("gizmo__spin", {"times": 2}).value == {"spins": 2}


def test_a_script_contributes_tools_commands_guidelines_and_state(
        app: Path, global_dir: Path, load: Callable[..., Agent]) -> None:
    place(global_dir, "notes.py")
    agent = load(app)
    (notes,) = agent.local_extensions
    assert (notes.name, notes.origin, notes.status, notes.diagnostics) == (
        "notes", "global", "loaded", [])
    assert agent.tools() == ["gizmo__spin", "note", "ping"]
    result = agent.call_tool("note", {"text": "milk"})
    assert (result.status, result.value, result.progress) == (
        "ok", {"noted": "milk", "count": 1, "extension": "notes"}, ("noting 'milk'",))
    assert agent.state("local/notes:count") == 1
    assert [g.text for g in agent.guidelines()] == ["Keep notes short."]
    assert agent.run_command("notes", "today").text == "1 notes (today)\n- milk"
    assert agent.snapshot()["local"] == {"notes": {"entries": [{"text": "milk"}]}}
    assert_agent_works(agent)


def test_a_local_hook_runs_after_the_mounts_and_may_block(
        app: Path, global_dir: Path, load: Callable[..., Agent]) -> None:
    place(global_dir, "notes.py")
    result = load(app).call_tool("note", {"text": "a secret"})
    assert (result.status, result.error) == ("blocked", "local extension `notes`: notes keeps "
                                                        "no secrets")
    assert [(step["mount"], step["hook"], step.get("origin")) for step in result.trace] == [
        ("gizmo", "guard", None), (None, "notes", "global")]


def test_a_folder_extension_imports_its_siblings(
        app: Path, global_dir: Path, load: Callable[..., Agent]) -> None:
    place(global_dir, "folder-with-helpers")
    agent = load(app)
    assert by_name(agent)["folder-with-helpers"].status == "loaded"
    assert agent.run_command("hello").text == "hello folder-with-helpers"


BAD_INPUTS = [
    ("syntax-error.py", "local/syntax-error", 1, "`syntax-error` does not parse: expected ':'"),
    ("raises-on-import.py", "local/setup-failed", 1,
     "`raises-on-import` raised RuntimeError: the import broke; it is not loaded"),
    ("setup-raises.py", "local/setup-failed", 2,
     "`setup-raises` raised ValueError: setup broke; it is not loaded"),
    ("setup-missing.py", "local/setup-missing", None,
     "`setup-missing` defines no `setup`; it is not loaded"),
    ("setup-not-callable.py", "local/setup-missing", None,
     "`setup-not-callable` has a `setup` that is a str, not a function; it is not loaded"),
    ("setup-returns-dict.py", "local/spec-invalid", None,
     "`setup` of `setup-returns-dict` returned dict, not a Spec; it is not loaded"),
    ("spec-unknown-field.py", "local/spec-field-unknown", 5,
     "`setup` of `spec-unknown-field` built a Spec with a field it does not take: "
     "Spec.__init__() got an unexpected keyword argument 'toolz'"),
]


@pytest.mark.parametrize(("fixture", "code", "line", "message"), BAD_INPUTS)
def test_a_broken_extension_is_dropped_and_the_agent_keeps_working(
        app: Path, global_dir: Path, load: Callable[..., Agent], fixture: str, code: str,
        line: int | None, message: str) -> None:
    place(global_dir, fixture, "notes.py")
    agent = load(app)
    record = by_name(agent)[fixture.removesuffix(".py")]
    assert record.status == "dropped"
    (diagnostic,) = record.diagnostics
    assert (diagnostic.code, diagnostic.file, diagnostic.line, diagnostic.message) == (
        code, str(global_dir / fixture), line, message)
    assert diagnostic.is_error
    assert by_name(agent)["notes"].status == "loaded"
    assert agent.call_tool("note", {"text": "x"}).ok
    assert_agent_works(agent)


def test_a_bad_part_is_left_out_and_the_rest_loads(
        app: Path, global_dir: Path, load: Callable[..., Agent]) -> None:
    place(global_dir, "tool-not-define-tool.py", "hook-unknown-event.py")
    agent = load(app)
    tools, hooks = by_name(agent)["tool-not-define-tool"], by_name(agent)["hook-unknown-event"]
    assert (tools.status, list(tools.tools)) == ("loaded", ["fine"])
    assert [(d.code, d.message) for d in tools.diagnostics] == [(
        "local/tool-invalid", "`tool-not-define-tool`: the tool `plain` is a function, not a "
        "define_tool() definition; it is left out")]
    assert (hooks.status, hooks.hooks, hooks.guidelines) == ("loaded", {}, ["Still here."])
    assert [(d.code, d.message, d.hint) for d in hooks.diagnostics] == [(
        "local/event-unknown", "`hook-unknown-event`: `hooks` names `action.cal`, which is not "
        "an intercepting event; its handler is left out",
        "did you mean `action.call`? `hooks` takes an intercepting event")]
    assert agent.call_tool("fine", {}).value == "fine"
    assert_agent_works(agent)


def test_names_taken_by_the_agent_a_mount_or_an_earlier_extension_are_left_out(
        app: Path, global_dir: Path, load: Callable[..., Agent]) -> None:
    place(global_dir, "mounted-name.py", "shared-tool-a.py", "shared-tool-b.py")
    agent = load(app)
    records = by_name(agent)
    assert list(records["mounted-name"].tools) == ["own"]
    assert [d.message for d in records["mounted-name"].diagnostics] == [
        # a mounted name holds `__`, which no local tool may use (issue 23 item 16)
        "`mounted-name`: the name `gizmo__spin` in `tools` is left out: `gizmo__spin` "
        "contains `__`, which is reserved as the mount separator",
        f"the tool `ping` of local extension `mounted-name` (global, "
        f"`{global_dir / 'mounted-name.py'}`) is left out: the agent already has it"]
    assert list(records["shared-tool-b"].tools) == []
    assert [d.message for d in records["shared-tool-b"].diagnostics] == [
        f"the tool `shared` of local extension `shared-tool-b` (global, "
        f"`{global_dir / 'shared-tool-b.py'}`) is left out: local extension `shared-tool-a` "
        "(global) already has it"]
    assert agent.call_tool("shared", {}).value == "a"
    assert agent.call_tool("gizmo__spin", {"times": 3}).value == {"spins": 3}
    assert_agent_works(agent)


def test_bad_names_and_folders_without_extension_py_are_diagnostics(
        app: Path, global_dir: Path, load: Callable[..., Agent]) -> None:
    place(global_dir, "Bad__Name.py", "folder-without-entry", "notes.py")
    agent = load(app)
    records = by_name(agent)
    assert [d.code for d in records["Bad__Name"].diagnostics] == ["local/name-invalid"]
    assert "`Bad__Name` contains `__`" in records["Bad__Name"].diagnostics[0].message
    assert records["Bad__Name"].diagnostics[0].hint.startswith("rename it to `bad_name`")
    folder = records["folder-without-entry"]
    assert (folder.status, [d.code for d in folder.diagnostics]) == (
        "dropped", ["local/extension-module-missing"])
    assert records["notes"].status == "loaded"
    assert_agent_works(agent)


def test_local_hooks_run_sorted_by_name_whatever_their_origin(
        app: Path, global_dir: Path, tmp_path: Path, load: Callable[..., Agent]) -> None:
    explicit = tmp_path / "zz-tagger.py"
    explicit.write_text((LOCAL / "result-tagger.py").read_text())
    global_dir.mkdir(parents=True)
    (global_dir / "aa-tagger.py").write_text((LOCAL / "result-tagger.py").read_text())
    agent = load(app, extensions=[explicit])
    assert [(r.name, r.origin) for r in agent.local_extensions] == [
        ("zz-tagger", "explicit"), ("aa-tagger", "global")]
    assert agent.call_tool("ping", {}).value == {"pong": "ping", "tags": ["aa-tagger",
                                                                           "zz-tagger"]}


def test_a_shadowed_extension_is_never_imported(
        app: Path, global_dir: Path, tmp_path: Path, load: Callable[..., Agent]) -> None:
    global_dir.mkdir(parents=True)
    (global_dir / "notes.py").write_text(
        "from pathlib import Path\n"
        f"Path({str(tmp_path / 'imported')!r}).write_text('')\n"
        "def setup(ctx):\n    return None\n")
    agent = load(app, extensions=[LOCAL / "notes.py"])
    assert [(r.origin, r.status) for r in agent.local_extensions] == [
        ("explicit", "loaded"), ("global", "shadowed")]
    assert not (tmp_path / "imported").exists()


def test_setup_and_commands_may_be_async(app: Path, global_dir: Path,
                                         load: Callable[..., Agent]) -> None:
    place(global_dir, "async-setup.py")
    agent = load(app)
    assert by_name(agent)["async-setup"].status == "loaded"
    assert agent.run_command("later", "on").text == "later on"


def test_a_command_with_a_bad_input_or_completion_is_left_out(
        app: Path, global_dir: Path, load: Callable[..., Agent]) -> None:
    global_dir.mkdir(parents=True, exist_ok=True)
    (global_dir / "odd-commands.py").write_text(
        "from pydantic import BaseModel\n"
        "from eve_build.sdk import Spec, define_command\n\n\n"
        "class Args(BaseModel):\n    name: str\n\n\n"
        "def run(args, ctx):\n    return args.name\n\n\n"
        "def setup(ctx):\n"
        "    return Spec(commands={\n"
        "        'good': define_command(input=Args, run=run, complete={'name': ['ada']}),\n"
        "        'not-a-model': define_command(input=dict, run=run),\n"
        "        'stray': define_command(input=Args, run=run, complete={'nmae': ['x']}),\n"
        "        'numbers': define_command(run=run, complete={'args': [1, 2]}),\n"
        "    })\n")
    record = by_name(load(app))["odd-commands"]

    assert list(record.commands) == ["good"]
    assert [d.code for d in record.diagnostics] == ["local/command-invalid"] * 3
    messages = " | ".join(d.message for d in record.diagnostics)
    assert "`not-a-model` has an `input` that is a type, not a pydantic model" in messages
    assert "completes `nmae`, which is not one of its arguments (`name`)" in messages
    assert "completes `args` with a list, not strings or a function" in messages
