"""Instructions name their own tools by placeholder; each mount resolves it."""

from __future__ import annotations

from pathlib import Path

from eve_build.placeholders import find_placeholder_tools, resolve_placeholders
from eve_build.runtime.loader import load_agent
from eve_build.runtime.prompt import Prompt, assemble_loaded_prompt
from tests.runtime.apps import compile_app, make_app, mount_file

TEXT = "Call {{tool:spin}} (mount {{ namespace }}); leave {{other}} and {x} alone."


def test_a_mounted_fragment_names_the_tool_the_model_sees() -> None:
    assert resolve_placeholders(TEXT, "crm", {"crm__spin", "spin"}) == (
        "Call crm__spin (mount crm); leave {{other}} and {x} alone.")


def test_inside_an_extensions_subagent_nothing_is_prefixed() -> None:
    assert resolve_placeholders("Use {{tool:score}}.", "crm", {"score"}) == "Use score."


def test_the_agents_own_text_and_a_disabled_tool() -> None:
    assert resolve_placeholders("Use {{tool:greet}}.", None, {"greet"}) == "Use greet."
    assert resolve_placeholders("Use {{tool:gone}}.", "crm", set()) == "Use crm__gone."
    assert find_placeholder_tools(TEXT) == ["spin"]


def test_two_mounts_each_name_their_own_tool_and_plain_text_comes_once(tmp_path: Path) -> None:
    root = make_app(tmp_path / "app", ["gizmo", "instructions-dynamic"], {
        "extensions/left.py": mount_file("gizmo"),
        "extensions/right.py": mount_file("gizmo"),
    })
    fragment = root / "extensions" / "gizmo" / "extension" / "instructions.md"
    fragment.write_text("Spin with {{tool:spin}}.\n\nKeep gizmos dry.\n")
    compile_app(root)

    text = _assemble(root, []).text

    assert "Spin with left__spin." in text and "Spin with right__spin." in text
    assert "{{" not in text


def test_a_fragment_without_placeholders_is_shown_once_for_two_mounts(tmp_path: Path) -> None:
    root = make_app(tmp_path / "app", ["gizmo"], {
        "extensions/left.py": mount_file("gizmo"),
        "extensions/right.py": mount_file("gizmo"),
    })
    compile_app(root)

    prompt = _assemble(root, [])

    assert prompt.text.count("You have a gizmo.") == 1
    assert [(p.kind, p.mount) for p in prompt.parts] == [
        ("instructions", None), ("instructions", "left"), ("tools", None)]


def _assemble(root: Path, guidelines: list[str]) -> Prompt:
    """The prompt of the agent built in `root`, with these guidelines for the local ones'."""
    with load_agent(root, environ={}) as agent:
        return assemble_loaded_prompt(agent, guidelines=guidelines)
