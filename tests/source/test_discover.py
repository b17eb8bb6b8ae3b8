"""Discovery over small inline trees: names from paths, ignores, collisions."""

from __future__ import annotations

from pathlib import Path

from eve_build.source.discover import discover_source


def _tree(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _discover(root: Path):  # type: ignore[no-untyped-def]
    return discover_source(root, display="extension/", package_root=root.parent)


def test_names_come_from_paths(tmp_path: Path) -> None:
    root = _tree(tmp_path / "extension", {
        "extension.py": "", "tools/search.py": "", "tools/admin/reset.py": "",
        "hooks/auth/load_profile.py": "", "schedules/reports/weekly.py": "",
        "channels/webhook.py": "", "skills/summarize.md": "", "skills/triage/SKILL.md": "",
        "skills/triage/a/b.txt": "", "subagents/reviewer/agent.py": "",
        "subagents/reviewer/tools/score.py": "",
    })
    layout, found = _discover(root)

    assert found == []
    assert [(m.slot.directory, m.name) for m in layout.tree.modules] == [
        ("channels", "webhook"), ("hooks", "auth/load_profile"),
        ("schedules", "reports/weekly"), ("tools", "admin-reset"), ("tools", "search"),
    ]
    assert [(s.name, s.packaged, s.assets) for s in layout.tree.skills] == [
        ("summarize", False, ()), ("triage", True, ("skills/triage/a/b.txt",))]
    [reviewer] = layout.tree.subagents
    assert (reviewer.path, reviewer.agent_module) == ("reviewer", "subagents/reviewer/agent.py")
    assert [m.name for m in reviewer.modules] == ["score"]


def test_ignored_and_private_entries(tmp_path: Path) -> None:
    root = _tree(tmp_path / "extension", {
        "extension.py": "", "tools/_helpers.py": "", "tools/test_search.py": "",
        "tools/search_test.py": "", "tools/conftest.py": "", "tools/__pycache__/x.pyc": "",
        "tools/.hidden.py": "", "tests/test_x.py": "", "tools/README.md": "",
        "lib/http.py": "",
    })
    layout, found = _discover(root)

    assert found == []
    assert layout.tree.modules == []
    assert layout.files == ["extension.py", "lib/http.py", "tools/README.md", "tools/_helpers.py"]


def test_flat_slots_reject_folders_and_nested_names_clash(tmp_path: Path) -> None:
    root = _tree(tmp_path / "extension", {
        "extension.py": "", "channels/group/a.py": "", "tools/admin-reset.py": "",
        "tools/admin/reset.py": "", "tools/a-b.py": "", "tools/a_b.py": "",
    })
    _, found = _discover(root)

    assert sorted((d.code, d.file) for d in found) == [
        ("discover/identifier-clash", "extension/tools/a_b.py"),
        ("discover/name-collision", "extension/tools/admin-reset.py"),
        ("discover/unexpected-entry", "extension/channels/group"),
    ]


def test_tool_name_length_limits(tmp_path: Path) -> None:
    long49 = "a" * 49
    long65 = "b" * 65
    root = _tree(tmp_path / "extension", {
        "extension.py": "", f"tools/{long49}.py": "", f"tools/{long65}.py": ""})
    _, found = _discover(root)

    assert sorted((d.code, d.severity.value) for d in found) == [
        ("discover/name-long", "warning"), ("discover/name-too-long", "error")]


def test_subagent_without_agent_module_and_skill_without_file(tmp_path: Path) -> None:
    root = _tree(tmp_path / "extension", {
        "extension.py": "", "subagents/helper/tools/x.py": "", "skills/empty/notes.md": "",
        "instructions.md": "", "instructions.py": "",
    })
    _, found = _discover(root)

    assert sorted(d.code for d in found) == [
        "discover/agent-module-missing", "discover/instructions-duplicate",
        "discover/skill-file-missing"]


def test_private_skills_are_skipped_and_misspelt_slots_warned(tmp_path: Path) -> None:
    root = _tree(tmp_path / "extension", {
        "extension.py": "", "skills/_draft.md": "", "skills/ok.md": "", "tool/search.py": "",
        "Hooks/a.py": "", "lib/x.py": "",
    })
    layout, found = _discover(root)

    assert [s.name for s in layout.tree.skills] == ["ok"]
    assert sorted((d.code, d.file, d.severity.value, d.hint) for d in found) == [
        ("discover/folder-unknown", "extension/Hooks", "warning",
         "rename it to `hooks/` if it holds hooks"),
        ("discover/folder-unknown", "extension/tool", "warning",
         "rename it to `tools/` if it holds tools"),
    ]
