"""`eve call -e`, `eve command`, `eve message`, `eve extensions list`, `eve extension new-local`."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner, Result

from eve_build.cli import app as cli
from tests.conftest import GOLDEN
from tests.json_schemas import validate
from tests.local.conftest import LOCAL, place


def run(*args: str) -> Result:
    result = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in result.output
    return result


def test_call_loads_an_explicit_extension_without_trust(app: Path) -> None:
    result = run("call", "note", '{"text": "tea"}', "--path", str(app),
                 "-e", str(LOCAL / "notes.py"))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"noted": "tea", "count": 1, "extension": "notes"}
    assert result.stderr.splitlines() == [
        "notes: saw agent.start", "progress: noting 'tea'", "notes: saw tool.start note",
        "notes: saw tool.update note", "notes: saw tool.end note"]


def test_call_of_the_agents_tool_works_beside_a_broken_extension(app: Path) -> None:
    result = run("call", "ping", "--path", str(app), "-e", str(LOCAL / "setup-raises.py"),
                 "--extension", str(LOCAL / "syntax-error.py"))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"pong": "ping"}
    assert f"{LOCAL / 'setup-raises.py'}:2: error local/setup-failed: `setup-raises` raised " \
           "ValueError: setup broke; it is not loaded" in result.stderr
    assert f"{LOCAL / 'syntax-error.py'}:1: error local/syntax-error:" in result.stderr


def test_command_prints_the_reply(app: Path, global_dir: Path) -> None:
    place(global_dir, "notes.py", "command-non-string.py")
    result = run("command", "notes", "two", "words", "--path", str(app))
    assert (result.exit_code, result.stdout) == (0, "0 notes (two words)\n")


def test_a_raising_or_non_string_command_is_an_error_reply(app: Path, global_dir: Path) -> None:
    place(global_dir, "command-non-string.py")
    raised = run("command", "fails", "--path", str(app))
    assert (raised.exit_code, raised.stdout) == (1, "")
    assert raised.stderr.endswith("error: the command `fails` of `command-non-string` failed: "
                                  "ZeroDivisionError: division by zero\n")
    number = run("command", "number", "--path", str(app), "--json")
    assert number.exit_code == 1
    reason = ("the command `number` of local extension `command-non-string` returned int; "
              "a command returns the reply as a str")
    payload = json.loads(number.stdout)
    validate("command.json", payload)
    assert payload == {
        "status": "failed", "command": "number", "extension": "command-non-string",
        "text": reason, "error": {"message": reason, "hint": ""},
        "diagnostics": {"errors": 0, "warnings": 0, "items": []}}


def test_an_unknown_command_suggests_the_close_ones(app: Path, global_dir: Path) -> None:
    place(global_dir, "notes.py")
    result = run("command", "note", "--path", str(app))
    assert result.exit_code == 1
    assert result.stderr.endswith("error: there is no command `note`\n\nhint: did you mean "
                                  "`notes`?\n")


def test_message_runs_input_hooks_then_commands_then_skills(app: Path, global_dir: Path) -> None:
    place(global_dir, "greeter.py", "notes.py")
    handled = run("message", "hi", "--path", str(app))
    assert (handled.exit_code, handled.stdout) == (0, "hello from greeter\n")
    assert "message from `greeter`: greeter is ready" in handled.stderr
    command = run("message", "/notes plz", "--path", str(app))
    assert (command.exit_code, command.stdout) == (0, "0 notes (please)\n")
    skill = run("message", "/skill:summarize this plz", "--path", str(app))
    assert skill.stdout == ('<skill name="summarize">\nSummarize in three lines.\n</skill>\n\n'
                            "this please\n")
    unknown = run("message", "/skill:sumarize", "--path", str(app))
    assert unknown.exit_code == 1
    assert unknown.stderr.endswith("error: the agent has no skill `sumarize`\n\n"
                                   "hint: skills: `summarize`\n")


def test_message_json_reports_the_outcome_and_the_events(app: Path, global_dir: Path) -> None:
    place(global_dir, "greeter.py")
    result = run("message", "plz help", "--path", str(app), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    validate("message.json", data)
    assert (data["outcome"], data["status"], data["text"]) == ("turn", "ok", "please help")
    assert [step["outcome"] for step in data["trace"]] == ["transform"]
    assert [n["text"] for n in data["notices"]] == [
        "agent.start", "message.start", "turn.start", "turn.end", "message.end"]
    assert data["messages"] == [{"extension": "greeter", "text": "greeter is ready"}]


def test_extensions_list_json_matches_the_golden_file(
        app: Path, global_dir: Path, eve_home: Path, update_golden: bool) -> None:
    place(global_dir, "notes.py", "shared-tool-a.py", "shared-tool-b.py", "syntax-error.py",
          "folder-with-helpers")
    place(app / ".eve" / "extensions", "greeter.py")
    result = run("extensions", "list", "--json", "--path", str(app),
                 "-e", str(LOCAL / "folder-with-helpers"))
    assert result.exit_code == 0, result.output
    validate("extensions-list.json", json.loads(result.stdout))
    text = result.stdout.replace(str(eve_home), "$EVE_HOME").replace(str(LOCAL), "$FIXTURES")
    golden = GOLDEN / "local" / "extensions-list.json"
    if update_golden:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text)
    assert golden.read_text() == text


def test_extensions_list_human_output(app: Path, global_dir: Path) -> None:
    place(global_dir, "notes.py")
    result = run("extensions", "list", "--path", str(app))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "gizmo  mount  loaded  tools: gizmo__spin  commands: -  agent/extensions/gizmo.py",
        f"notes  global  loaded  tools: note  commands: /notes  {global_dir / 'notes.py'}"]


def test_new_local_writes_a_template_that_loads(app: Path, eve_home: Path) -> None:
    written = run("extension", "new-local", "jot", "--global")
    assert written.exit_code == 0, written.output
    assert written.stdout.splitlines()[0] == f"Wrote `{eve_home / 'extensions' / 'jot.py'}`"
    listed = run("extensions", "list", "--json", "--path", str(app))
    (row,) = [r for r in json.loads(listed.stdout)["extensions"] if r["name"] == "jot"]
    assert (row["status"], row["tools"], row["commands"], row["guidelines"], row["diagnostics"]
            ) == ("loaded", ["jot_echo"], ["jot-status"], 1, [])
    called = run("call", "jot_echo", '{"text": "hey"}', "--path", str(app))
    assert json.loads(called.stdout) == {"echo": "hey", "uses": 1}
    again = run("extension", "new-local", "jot", "--global", "--json")
    assert again.exit_code == 1
    validate("extension-new-local.json", json.loads(again.stdout))
    assert "error local/name-taken: a local extension `jot` is already there" in again.stderr


def test_new_local_refuses_a_bad_name(app: Path) -> None:
    result = run("extension", "new-local", "My__Notes", "--path", str(app))
    assert result.exit_code == 2
    assert "hint: try `my_notes`" in result.stderr


BAD = {  # every bad input of issue 8, each with the code its diagnostic carries
    "syntax-error.py": "local/syntax-error", "raises-on-import.py": "local/setup-failed",
    "setup-raises.py": "local/setup-failed", "setup-missing.py": "local/setup-missing",
    "setup-not-callable.py": "local/setup-missing", "setup-returns-dict.py": "local/spec-invalid",
    "spec-unknown-field.py": "local/spec-field-unknown",
    "tool-not-define-tool.py": "local/tool-invalid", "hook-unknown-event.py": "local/event-unknown",
    "shared-tool-b.py": "local/name-taken", "mounted-name.py": "local/name-taken",
    "Bad__Name.py": "local/name-invalid", "folder-without-entry": "local/extension-module-missing",
}


def test_eve_call_answers_beside_every_bad_input_and_names_each_file(
        app: Path, global_dir: Path, eve_home: Path) -> None:
    place(global_dir, *BAD, "shared-tool-a.py")
    place(app / ".eve" / "extensions", "notes.py")
    (eve_home / "trust.json").write_text("[]")
    result = run("call", "ping", '{"text": "alive"}', "--path", str(app))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"pong": "alive"}
    for name, code in BAD.items():
        assert f"{global_dir / name}" in result.stderr
        assert any(f"{code}:" in line and str(global_dir / name) in line
                   for line in result.stderr.splitlines()), name
    assert f"{eve_home / 'trust.json'}: error local/trust-file-invalid" in result.stderr
    assert ".eve/extensions: warning local/project-untrusted" in result.stderr
    assert "Traceback" not in result.stderr
    command = run("command", "number", "--path", str(app),
                  "-e", str(LOCAL / "command-non-string.py"))
    assert (command.exit_code, "returned int" in command.stderr) == (1, True)


def test_a_slash_command_takes_named_arguments(app: Path, tmp_path: Path) -> None:
    import os
    import subprocess

    from tests.mcp.conftest import eve_command

    extension = tmp_path / "greeter.py"
    extension.write_text(
        "from pydantic import BaseModel\n"
        "from eve_build.sdk import Spec, define_command\n\n\n"
        "class Greeting(BaseModel):\n    name: str\n    greeting: str = 'Hello'\n\n\n"
        "def setup(ctx):\n"
        "    return Spec(commands={'greet': define_command(\n"
        "        input=Greeting, run=lambda args, ctx: f'{args.greeting}, {args.name}!')})\n")
    env = {**os.environ, "EVE_HOME": str(tmp_path / "home")}

    def message(text: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(eve_command("message", "--path", str(app), "-e", str(extension),
                                          text), capture_output=True, text=True, timeout=120,
                              env=env, check=False)

    done = message('/greet name=Ada "greeting=Hi there"')
    wrong = message("/greet nme=Ada")
    assert (done.returncode, done.stdout.strip()) == (0, "Hi there, Ada!"), done.stderr
    assert wrong.returncode == 1
    assert "unknown argument `nme`; the arguments are `name`, `greeting`" in (
        wrong.stdout + wrong.stderr)
