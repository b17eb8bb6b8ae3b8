"""Discovery over small inline trees, held in memory: names from paths, ignores, collisions."""

from __future__ import annotations

from pathlib import Path

from eve_build.source.discover import discover_source, discover_tree
from eve_build.source.tree import MemoryTree

SPEC = {
    "extension.py": "", "tools/search.py": "", "tools/admin/reset.py": "",
    "tools/a-b.py": "", "tools/a_b.py": "", "tools/Bad.py": "", "tools/_helpers.py": "",
    "tools/__pycache__/x.pyc": "", "channels/group/a.py": "", "skills/ok.md": "",
    "skills/ok/SKILL.md": "", "skills/empty/notes.md": "", "subagents/helper/tools/x.py": "",
    "instructions.md": "", "instructions.py": "", "tool/search.py": "", "lib/http.py": "",
}


def _discover(files: dict[str, str]):  # type: ignore[no-untyped-def]
    return discover_tree(MemoryTree(files), display="extension/")


def test_names_come_from_paths() -> None:
    files = {
        "extension.py": "", "tools/search.py": "", "tools/admin/reset.py": "",
        "hooks/auth/load_profile.py": "", "schedules/reports/weekly.py": "",
        "channels/webhook.py": "", "skills/summarize.md": "", "skills/triage/SKILL.md": "",
        "skills/triage/a/b.txt": "", "subagents/reviewer/agent.py": "",
        "subagents/reviewer/tools/score.py": "",
    }
    layout, found = _discover(files)

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


def test_ignored_and_private_entries() -> None:
    files = {
        "extension.py": "", "tools/_helpers.py": "", "tools/test_search.py": "",
        "tools/search_test.py": "", "tools/conftest.py": "", "tools/__pycache__/x.pyc": "",
        "tools/.hidden.py": "", "tests/test_x.py": "", "tools/README.md": "",
        "lib/http.py": "",
    }
    layout, found = _discover(files)

    assert found == []
    assert layout.tree.modules == []
    assert layout.files == ["extension.py", "lib/http.py", "tools/README.md", "tools/_helpers.py"]


def test_flat_slots_reject_folders_and_nested_names_clash() -> None:
    files = {
        "extension.py": "", "channels/group/a.py": "", "tools/admin-reset.py": "",
        "tools/admin/reset.py": "", "tools/a-b.py": "", "tools/a_b.py": "",
    }
    _, found = _discover(files)

    assert sorted((d.code, d.file) for d in found) == [
        ("discover/identifier-clash", "extension/tools/a_b.py"),
        ("discover/name-collision", "extension/tools/admin-reset.py"),
        ("discover/unexpected-entry", "extension/channels/group"),
    ]


def test_tool_name_length_limits() -> None:
    long49 = "a" * 49
    long65 = "b" * 65
    files = {
        "extension.py": "", f"tools/{long49}.py": "", f"tools/{long65}.py": ""}
    _, found = _discover(files)

    assert sorted((d.code, d.severity.value) for d in found) == [
        ("discover/name-long", "warning"), ("discover/name-too-long", "error")]


def test_subagent_without_agent_module_and_skill_without_file() -> None:
    files = {
        "extension.py": "", "subagents/helper/tools/x.py": "", "skills/empty/notes.md": "",
        "instructions.md": "", "instructions.py": "",
    }
    _, found = _discover(files)

    assert sorted(d.code for d in found) == [
        "discover/agent-module-missing", "discover/instructions-duplicate",
        "discover/skill-file-missing"]


def test_private_skills_are_skipped_and_misspelt_slots_warned() -> None:
    files = {
        "extension.py": "", "skills/_draft.md": "", "skills/ok.md": "", "tool/search.py": "",
        "Hooks/a.py": "", "lib/x.py": "",
    }
    layout, found = _discover(files)

    assert [s.name for s in layout.tree.skills] == ["ok"]
    assert sorted((d.code, d.file, d.severity.value, d.hint) for d in found) == [
        ("discover/folder-unknown", "extension/Hooks", "warning",
         "rename it to `hooks/` if it holds hooks"),
        ("discover/folder-unknown", "extension/tool", "warning",
         "rename it to `tools/` if it holds tools"),
    ]


def test_disk_and_memory_trees_discover_the_same(tmp_path: Path) -> None:
    root = tmp_path / "extension"
    for relative, text in SPEC.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)

    on_disk = discover_source(root, display="extension/", package_root=tmp_path)
    in_memory = _discover(SPEC)

    assert on_disk[1]  # the spec is meant to produce diagnostics
    assert on_disk == in_memory
