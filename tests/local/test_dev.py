"""`eve dev` loads the local extensions again when their folders change."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from eve_build.dev.loop import DevSession, Generation, LocalRound, run_dev
from eve_build.local.trust import approve_trust
from tests.local.conftest import place


def test_a_change_in_a_local_folder_reloads_without_a_build(
        app: Path, eve_home: Path, global_dir: Path) -> None:
    project = app / ".eve" / "extensions"
    place(project, "notes.py")
    place(global_dir, "greeter.py")
    approve_trust(app, eve_home)
    session = DevSession(app)
    watched: list[list[Path]] = []

    def watch(paths: list[Path]) -> Iterable[set[Path]]:
        watched.append(paths)
        (project / "notes.py").write_text((project / "notes.py").read_text() + "# edited\n")
        yield {(project / "notes.py").resolve()}
        (global_dir / "greeter.py").unlink()
        yield {(global_dir / "greeter.py").resolve()}

    generations: list[Generation] = []
    rounds: list[LocalRound] = []
    run_dev(session, generations.append, watch, on_local=rounds.append)
    assert watched == [sorted([app.resolve(), global_dir.resolve()])]
    assert len(generations) == 1  # the first build only: local changes build nothing
    assert [(r.changed, [(row["name"], row["status"]) for row in r.rows]) for r in rounds] == [
        ((".eve/extensions/notes.py",), [("notes", "untrusted"), ("greeter", "loaded")]),
        ((str(global_dir.resolve() / "greeter.py"),), [("notes", "untrusted")]),
    ]
