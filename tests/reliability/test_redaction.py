"""A secret from `env()` in a tool's error never leaves the host (issue 23, item 15): the
redactor itself, then real `eve call` and `eve mcp` processes (`eve serve`: see
test_serve_hostile.py)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from eve_build.runtime.redaction import derive_redactor
from eve_build.sdk.mount import ToolResult
from tests.reliability.served import ENVIRON, SECRET, make_hostile_app

MARK = "[redacted env CRM_API_KEY]"


@pytest.fixture(scope="module")
def leaky_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_hostile_app(tmp_path_factory.mktemp("leaky") / "app")


def test_every_spelling_of_a_secret_is_redacted() -> None:
    redactor = derive_redactor({"KEY": SECRET, "OTHER": "plain-token"})
    spellings = [SECRET, repr(SECRET), json.dumps(SECRET), json.dumps(SECRET, ensure_ascii=False),
                 repr(SECRET.encode())]
    for spelling in spellings:
        text = f"before {spelling} after"
        redacted = redactor.redact(text)
        assert "CANARY" not in redacted, spelling
        assert "[redacted env KEY]" in redacted and redacted.startswith("before ")
    assert redactor.redact("a plain-token here") == "a [redacted env OTHER] here"


def test_short_values_are_not_redacted_and_the_longer_secret_wins() -> None:
    redactor = derive_redactor({"REGION": "us", "INNER": "abcd", "OUTER": "xxabcdxx"})
    assert redactor.redact("us: xxabcdxx and abcd") == (
        "us: [redacted env OUTER] and [redacted env INNER]")
    assert derive_redactor({"SHORT": "abc"}).pattern is None


def test_a_result_keeps_its_value_and_loses_the_secret_everywhere_else() -> None:
    redactor = derive_redactor({"KEY": SECRET})
    result = ToolResult(name="t", status="failed", details={"kept": SECRET},
                        error=f"raised: {SECRET}", trace=({"reason": f"hook: {SECRET!r}"},),
                        progress=(f"step {SECRET}",))
    redacted = redactor.redact_result(result)
    assert redacted.value == {"kept": SECRET}  # the tool's own data is given as it is
    assert "CANARY" not in json.dumps([redacted.error, redacted.trace, redacted.progress])


def _eve(root: Path, home: Path, *args: str, stdin: str | None = None
         ) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **ENVIRON, "EVE_HOME": str(home), "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "eve_build", *args, "--path", str(root)],
                          capture_output=True, text=True, env=env, timeout=120, input=stdin)


def test_eve_call_prints_the_error_and_progress_without_the_secret(
    leaky_root: Path, tmp_path: Path,
) -> None:
    plain = _eve(leaky_root, tmp_path, "call", "crm__search", "{}")
    as_json = _eve(leaky_root, tmp_path, "call", "crm__search", "{}", "--json")

    assert plain.returncode == as_json.returncode == 1
    assert f"error: `crm__search` failed: key is {MARK} / " in plain.stderr
    assert f"progress: progress with {MARK}" in plain.stderr
    payload = json.loads(as_json.stdout)
    assert payload["error"]["message"].startswith(f"key is {MARK} / ")
    assert payload["progress"] == [f"progress with {MARK}"]
    for output in (plain.stdout, plain.stderr, as_json.stdout, as_json.stderr):
        assert "CANARY" not in output
        assert "Traceback" not in output


def test_eve_mcp_returns_the_error_without_the_secret(leaky_root: Path, tmp_path: Path) -> None:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {**os.environ, **ENVIRON, "EVE_HOME": str(tmp_path / "home")}
    params = StdioServerParameters(command=sys.executable, env=env, args=[
        "-m", "eve_build", "mcp", "--path", str(leaky_root)])
    errlog_path = tmp_path / "stderr.txt"

    async def main() -> Any:
        with errlog_path.open("w") as errlog:
            async with asyncio.timeout(90), Client(stdio_client(params, errlog=errlog),
                                                   read_timeout_seconds=60) as client:
                return await client.call_tool("crm__search", {})

    result = asyncio.run(main())
    text = "".join(getattr(block, "text", "") for block in result.content)
    assert result.is_error
    assert f"key is {MARK} / " in text
    assert "CANARY" not in text
    assert "CANARY" not in errlog_path.read_text()
