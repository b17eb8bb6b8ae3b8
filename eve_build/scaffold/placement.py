"""Where a new scaffold goes, decided before anything is written.

- **its own repository** (the usual case): git init, `.venv`, a CI workflow;
- **inside another git work tree** (a monorepo): no git init and no CI workflow of its
  own, the enclosing repository has those;
- **a member of a uv workspace**: like the monorepo case, and no `.venv` either; the
  package joins the workspace (`membership.join_workspace`).

The authors of `[project].authors` come from `git config user.name` / `user.email`
when git is used and they are set.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from eve_build.process import Runner
from eve_build.scaffold.membership import try_find_member_workspace
from eve_build.scaffold.metadata import Author


@dataclass(frozen=True)
class Placement:
    workspace_root: Path | None
    """The uv workspace the package joins, or None."""
    inside_repository: bool
    """The target is inside an existing git work tree."""
    authors: tuple[Author, ...]

    @property
    def own_repository(self) -> bool:
        return self.workspace_root is None and not self.inside_repository


def derive_placement(run: Runner, target: Path, *, git: bool) -> Placement:
    workspace = try_find_member_workspace(target)
    if not git:
        return Placement(workspace, inside_repository=False, authors=())
    folder = _nearest_existing(target)
    code, output = run(["git", "rev-parse", "--is-inside-work-tree"], folder)
    inside = code == 0 and output.strip() == "true"
    return Placement(workspace, inside, read_git_authors(run, folder))


def read_git_authors(run: Runner, folder: Path) -> tuple[Author, ...]:
    """The configured git identity as `[project].authors`, or () when none is set."""
    values = []
    for key in ("user.name", "user.email"):
        code, output = run(["git", "config", key], folder)
        values.append(output.strip() if code == 0 else "")
    name, email = values
    return (Author(name, email),) if name else ()


def _nearest_existing(target: Path) -> Path:
    start = target.resolve()
    return next(p for p in (start, *start.parents) if p.is_dir())
