"""One owner answers whose state it is in a shared store (eve_build/serve/scope.py):
every module that opens a state scope or schedule runs of the store takes the scope
from `served_scope`, and nobody else reads EVE_STATE_SCOPE or spells a scope (the old
second answer, `derive_scope` in session/states.py, would fail here)."""

from __future__ import annotations

import re

from tests.conftest import REPO

PACKAGE = REPO / "eve_build"
OWNER = PACKAGE / "serve" / "scope.py"
OPENS = re.compile(r"\.(state_scope|schedule_runs)\(")
SPELLS = re.compile(r"""f["'](serve|project)/\{|["']serve/agent["']|EVE_STATE_SCOPE""")


def test_every_scope_comes_from_the_owner() -> None:
    openers, spellers = [], []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == OWNER:
            continue
        text = path.read_text(encoding="utf-8")
        if OPENS.search(text) and "served_scope(" not in text:
            openers.append(path.relative_to(REPO).as_posix())
        if SPELLS.search(text):
            spellers.append(path.relative_to(REPO).as_posix())
    assert openers == [], f"opens a scope without asking eve_build.serve.scope: {openers}"
    assert spellers == [], f"derives a scope of its own: {spellers}"
    owner = OWNER.read_text(encoding="utf-8")
    assert 'SCOPE_ENV = "EVE_STATE_SCOPE"' in owner and "def served_scope(" in owner
