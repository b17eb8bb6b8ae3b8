"""Every diagnostic code the package emits is listed (and described) in the codes table."""

from __future__ import annotations

import re

from eve_build.codes import CODES
from tests.conftest import REPO

CODE_LITERAL = re.compile(r'"((?:project|discover|load|config|tool|dynamic|channel|connection|'
                          r'schedule|hook|skill|subagent|instructions|state|output|mount|compat|'
                          r'workspace|agent|runtime|hatch|local|node|session)/[a-z0-9-]+)"')


def test_every_emitted_code_is_in_the_table() -> None:
    emitted = set()
    for path in (REPO / "eve_build").rglob("*.py"):
        if path.name == "codes.py":
            continue
        emitted.update(CODE_LITERAL.findall(path.read_text()))
    assert emitted, "the scan found no codes at all"
    assert sorted(emitted - set(CODES)) == []


def test_codes_have_the_stable_form_and_a_description() -> None:
    for code, description in CODES.items():
        assert re.fullmatch(r"[a-z]+/[a-z0-9-]+", code), code
        assert description.endswith("."), code
