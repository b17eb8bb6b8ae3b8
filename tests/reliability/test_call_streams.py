"""`eve call` in a real process: hangs end, stdout stays one JSON document, input is bounded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eve_build.runtime.arguments import MAX_ARGUMENT_BYTES
from tests.reliability.agents import make_misbehaving_agent, run_eve


@pytest.fixture(scope="module")
def agent_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_misbehaving_agent(tmp_path_factory.mktemp("streams") / "app")


def test_a_hanging_sync_tool_ends_the_call_with_a_clear_error(agent_root: Path) -> None:
    done = run_eve("call", "hang", cwd=agent_root)
    assert done.returncode == 1
    assert done.stdout == b""
    assert done.stderr.decode() == (
        "error: `hang` failed: `hang` did not finish within its 0.5 s timeout (set "
        "`define_tool(timeout=...)` to allow more)\n")


def test_an_async_tool_blocking_the_event_loop_fails_at_its_timeout(agent_root: Path) -> None:
    done = run_eve("call", "blocker", "--json", cwd=agent_root)
    assert done.returncode == 1
    # it blocks the user loop, not the host's: its own 0.5 s timeout holds
    reason = ("`blocker` did not finish within its 0.5 s timeout (set "
              "`define_tool(timeout=...)` to allow more)")
    payload = json.loads(done.stdout)
    assert (payload["status"], payload["error"]["message"]) == ("failed", reason)
    assert done.stderr.decode() == f"error: `blocker` failed: {reason}\n"


def test_an_async_tool_raising_cancelled_error_ends_the_call(agent_root: Path) -> None:
    done = run_eve("call", "cancelled", cwd=agent_root)
    assert done.returncode == 1
    assert b"`cancelled` was cancelled (it raised CancelledError)" in done.stderr
    assert b"Traceback" not in done.stderr


def test_json_stdout_is_one_document_even_when_the_tool_prints(agent_root: Path) -> None:
    done = run_eve("call", "chatty", "--json", cwd=agent_root)
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)  # exactly one document: anything else fails to parse
    assert (payload["status"], payload["value"]) == ("ok", {"ok": True})
    assert b"user code talking on stdout" in done.stderr
    assert b"straight to fd 1" in done.stderr


def test_json_failures_are_one_document_too(agent_root: Path) -> None:
    done = run_eve("call", "nan", "--json", cwd=agent_root)
    assert done.returncode == 1
    payload = json.loads(done.stdout)
    assert payload["status"] == "failed"
    assert payload["error"]["message"].startswith("`nan` returned a value that is not JSON")
    assert b"NaN" not in done.stdout


def test_an_endless_file_argument_is_refused(agent_root: Path) -> None:
    done = run_eve("call", "fine", "@/dev/zero", cwd=agent_root)
    assert done.returncode == 2
    assert done.stderr.decode() == (
        "error: cannot read `/dev/zero`: it is a character device, not a regular file; the "
        "argument file is not read\n\nhint: pass a regular file, or pipe the JSON in with "
        "`@-`\n")


def test_a_file_argument_over_the_limit_is_refused(agent_root: Path) -> None:
    (agent_root / "big.json").write_bytes(b" " * (MAX_ARGUMENT_BYTES + 1))
    done = run_eve("call", "fine", "@big.json", cwd=agent_root)
    assert done.returncode == 2
    assert done.stderr.decode() == (
        f"error: `big.json` holds more than {MAX_ARGUMENT_BYTES} bytes\n\n"
        "hint: pass smaller arguments (the limit is in docs/reliability.md)\n")


def test_arguments_can_come_from_stdin_within_the_limit(agent_root: Path) -> None:
    done = run_eve("call", "fine", "@-", cwd=agent_root, stdin=b"{}")
    assert (done.returncode, json.loads(done.stdout)) == (0, {"ok": True})
    too_much = b" " * (MAX_ARGUMENT_BYTES + 1)
    done = run_eve("call", "fine", "@-", cwd=agent_root, stdin=too_much)
    assert done.returncode == 2
    assert b"stdin holds more than" in done.stderr


def test_a_file_argument_that_is_not_utf8_is_a_usage_error(agent_root: Path) -> None:
    (agent_root / "latin1.json").write_bytes(b'{"name": "caf\xe9"}')
    done = run_eve("call", "fine", "@latin1.json", cwd=agent_root)
    assert done.returncode == 2
    assert done.stderr.decode().startswith("error: `latin1.json` is not UTF-8 text (byte 13)")
