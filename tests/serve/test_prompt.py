"""`eve prompt`: instructions in order, dynamic fragments rendered per mount, tool lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from eve_build.cli import app as cli
from eve_build.runtime.loader import load_agent
from eve_build.runtime.prompt import Prompt, assemble_loaded_prompt
from tests.json_schemas import validate
from tests.runtime.apps import compile_app, make_app, mount_file

FILES = {
    "instructions.md": "You are the help desk.\n",
    "extensions/billing.py": mount_file("instructions_dynamic", 'team="billing"'),
    "extensions/broken.py": mount_file("instructions_dynamic", 'team="night", fail=True'),
    "extensions/gizmo.py": mount_file("gizmo"),
}


@pytest.fixture(scope="module")
def prompt_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_app(tmp_path_factory.mktemp("prompt") / "app",
                    ["instructions-dynamic", "gizmo"], FILES)
    compile_app(root)
    return root


def test_the_prompt_renders_each_part_in_order(prompt_root: Path) -> None:
    prompt = _assemble(prompt_root, ["Answer in English."])
    assert [(p.kind, p.mount) for p in prompt.parts] == [
        ("instructions", None), ("dynamic", "billing"), ("dynamic", "broken"),
        ("instructions", "gizmo"), ("guidelines", None), ("tools", None)]
    text = prompt.text
    assert text.startswith("You are the help desk.\n\n"
                           "You answer for the billing team (mount `billing`).\n\n"
                           "[error: the instructions of mount `broken` (`instructions_dynamic/"
                           "extension/instructions.py`) could not be rendered: render raised "
                           "RuntimeError: no roster for the night team (at ")
    assert "You have a gizmo." in text
    assert text.endswith("Guidelines:\n- Answer in English.\n\n"
                         "Tools:\n- gizmo__spin: Spin the gizmo a number of times and report "
                         "how many spins were made.\n")


def test_eve_prompt_prints_the_text_and_warns_about_failed_fragments(prompt_root: Path) -> None:
    result = CliRunner().invoke(cli, ["prompt", "--path", str(prompt_root)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("You are the help desk.\n")
    assert result.stderr.startswith("warning: the instructions of mount `broken` (`instructions_"
                                    "dynamic/extension/instructions.py`) could not be rendered: "
                                    "render raised RuntimeError: no roster for the night team")
    assert "Traceback" not in result.output


def test_eve_prompt_json_lists_the_parts(prompt_root: Path) -> None:
    result = CliRunner().invoke(cli, ["prompt", "--path", str(prompt_root), "--json"])
    payload = json.loads(result.stdout)
    validate("prompt.json", payload)
    assert payload["errors"] == 1
    assert payload["parts"][1] == {
        "kind": "dynamic", "mount": "billing",
        "file": "instructions_dynamic/extension/instructions.py",
        "text": "You answer for the billing team (mount `billing`).", "error": None}


def test_an_unknown_subagent_is_a_clear_error(prompt_root: Path) -> None:
    result = CliRunner().invoke(cli, ["prompt", "--path", str(prompt_root),
                                      "--subagent", "reviewer"])
    assert result.exit_code == 1
    assert result.stderr.splitlines()[:2] == [
        "error serve/subagent-unknown: the agent has no subagent `reviewer`",
        "  hint: the agent has no subagents"]


SCRIPT = """\
from pydantic import BaseModel
from eve_build.sdk import Spec, define_tool


class Input(BaseModel):
    text: str


def setup(ctx):
    tool = define_tool(description='{description}', input=Input,
                       execute=lambda input, tool_ctx: input.text[:10]{extra})
    return Spec(tools={{'shorten': tool}}, guidelines={guidelines})
"""


def _prompt_with(root: Path, tmp_path: Path, **parts: str) -> str:
    script = tmp_path / "style.py"
    script.write_text(SCRIPT.format(**{"extra": "", **parts}))
    result = CliRunner().invoke(cli, ["prompt", "--path", str(root), "-e", str(script)])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_local_guidelines_and_tools_join_the_prompt(prompt_root: Path, tmp_path: Path) -> None:
    text = _prompt_with(prompt_root, tmp_path, description="Shorten a text.",
                        guidelines="['Be brief.', 'Cite ids.']")
    assert "Guidelines:\n- Be brief.\n- Cite ids.\n\nTools:\n" in text
    assert "- shorten: Shorten a text.\n" in text


def test_a_tools_prompt_snippet_and_guidelines_show_in_the_prompt(
    prompt_root: Path, tmp_path: Path
) -> None:
    text = _prompt_with(prompt_root, tmp_path, description="Shorten a text to ten characters.",
                        guidelines="['Be brief.']", extra=(
                            ",\n                       prompt_snippet='shorten long quotes "
                            "before citing them',\n                       prompt_guidelines="
                            "['Shorten every quote.', 'Be brief.']"))
    assert "Guidelines:\n- Be brief.\n- Shorten every quote.\n\nTools:\n" in text
    assert "- shorten: shorten long quotes before citing them\n" in text
    assert "ten characters" not in text


def _assemble(root: Path, guidelines: list[str]) -> Prompt:
    """The prompt of the agent built in `root`, with these guidelines for the local ones'."""
    with load_agent(root, environ={}) as agent:
        return assemble_loaded_prompt(agent, guidelines=guidelines)
