"""The test harness: load_extension in one line, and the pytest fixtures of the plugin."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.errors import EveBuildError
from eve_build.sdk import env
from eve_build.sdk.mount import ToolResult
from eve_build.testing import AgentHarness, ExtensionHarness, HarnessError, load_extension
from tests.runtime.apps import make_app, mount_file


def test_load_extension_mounts_it_once_with_the_config(
    copy_fixture: Callable[[str], Path],
) -> None:
    with load_extension(copy_fixture("extensions/acme-crm"), api_key="k", region="us") as crm:
        assert crm.namespace == "acme_crm"
        result = crm.call("search", {"query": "Ada"})
        assert (result.value["region"], result.name) == ("us", "acme_crm__search")
        assert crm.call("acme_crm__search", {"query": "Ada"}).value["requests"] == 2
        assert crm.state("requests") == 2
        assert crm.call("score", {"change": "merge"}, subagent="acme_crm__reviewer").ok


def test_subagent_takes_the_names_the_cli_takes_and_the_extensions_own(
    copy_fixture: Callable[[str], Path],
) -> None:
    change, bill = {"change": "merge"}, {"record_id": "r1", "amount": 3.0}
    with load_extension(copy_fixture("extensions/acme-crm"), api_key="k") as crm:
        # as `eve info` lists them and `eve call --subagent` takes them
        assert crm.call("score", change, subagent="acme_crm__reviewer").ok
        assert crm.call("verify", bill, subagent="acme_crm__reviewer/checker").ok
        # as the extension names them: its folders under subagents/
        assert crm.call("score", change, subagent="reviewer").ok
        assert crm.call("verify", bill, subagent="reviewer/checker").ok
        assert crm.fire("action.call", tool="score", arguments=change,
                        subagent="reviewer").outcome == "proceed"
        with pytest.raises(EveBuildError) as unknown:
            crm.call("score", change, subagent="nobody")
    assert "no subagent `nobody`" in unknown.value.message
    assert "`acme_crm__reviewer`" in (unknown.value.hint or "")


def test_the_harness_answers_approvals_when_told(copy_fixture: Callable[[str], Path]) -> None:
    with load_extension(copy_fixture("extensions/acme-crm"), api_key="k") as crm:
        contact = {"name": "Ada", "email": "ada@example.com"}
        assert crm.call("create_contact", contact).status == "refused"
        assert crm.call("create_contact", contact, approve=False).status == "refused"
        assert crm.call("create_contact", contact, approve=True).status == "ok"



def test_acall_is_call_for_code_in_an_event_loop(copy_fixture: Callable[[str], Path]) -> None:
    contact = {"name": "Ada", "email": "ada@example.com"}

    async def calls(crm: ExtensionHarness) -> list[ToolResult]:
        return [await crm.acall("search", {"query": "Ada"}),
                await crm.acall("acme_crm__search", {"query": "Ada"}),
                await crm.acall("create_contact", contact),
                await crm.acall("create_contact", contact, approve=True),
                await crm.acall("score", {"change": "merge"}, subagent="acme_crm__reviewer")]

    with load_extension(copy_fixture("extensions/acme-crm"), api_key="k", region="us") as crm:
        results = asyncio.run(calls(crm))
    assert [(r.name, r.status) for r in results] == [
        ("acme_crm__search", "ok"), ("acme_crm__search", "ok"),
        ("acme_crm__create_contact", "refused"), ("acme_crm__create_contact", "ok"),
        ("score", "ok")]
    assert results[1].value["region"] == "us"

def test_fire_runs_the_hooks_of_one_event(copy_fixture: Callable[[str], Path]) -> None:
    with load_extension(copy_fixture("extensions/gizmo")) as gizmo:
        blocked = gizmo.fire("action.call", tool="spin", arguments={"times": 13})
        fine = gizmo.fire("action.call", tool="spin", arguments={"times": 3})
    assert (blocked.outcome, blocked.reason) == (
        "blocked", "hook `guard` of mount `gizmo`: 13 spins are unlucky")
    assert (fine.outcome, fine.value) == ("proceed", {"times": 3})


def test_config_values_may_be_env_references(copy_fixture: Callable[[str], Path]) -> None:
    root = copy_fixture("extensions/acme-crm")
    with load_extension(root, api_key=env("ACME_KEY"), environ={"ACME_KEY": "k"}) as crm:
        assert crm.call("search", {"query": "x"}).ok
    with load_extension(root, api_key=env("ACME_KEY"), environ={}) as unset:
        failed = unset.call("search", {"query": "x"})
    assert not failed.ok
    assert failed.error is not None
    assert failed.error.endswith('config field `api_key` reads env("ACME_KEY"), which is not set')


def test_a_config_error_is_readable_in_the_exception(copy_fixture: Callable[[str], Path]) -> None:
    import inspect

    with pytest.raises(HarnessError) as caught:
        line = inspect.currentframe().f_lineno + 1  # type: ignore[union-attr]
        load_extension(copy_fixture("extensions/acme-crm"), region="us")
    text = str(caught.value)
    # the diagnostic carries the line of the mount call, as `file:line:` (issue 19)
    assert f"\ntests/testing/test_harness.py:{line}: error mount/config-invalid: " in text
    assert text.startswith("cannot load the agent: 1 error\n")
    assert "mount/config-invalid" in text
    assert "`api_key`" in text
    # the mount call is in this test file: the error names it, not an agent file
    assert "tests/testing/test_harness.py" in text
    assert "agent/extensions" not in text


def test_the_eve_extension_fixture_closes_what_it_opened(
    eve_extension: Callable[..., ExtensionHarness], copy_fixture: Callable[[str], Path],
) -> None:
    root = copy_fixture("extensions/acme-crm")
    crm = eve_extension(root, api_key="k", max_results=1)
    assert crm.call("search", {"query": "ada", "limit": 5}).value["limit"] == 1
    assert str((root / "build/eve").resolve()) in sys.path  # until the test ends


def test_the_plugin_is_registered_for_every_pytest_session(
    copy_fixture: Callable[[str], Path],
) -> None:
    root = copy_fixture("extensions/gizmo")
    (root / "tests").mkdir()
    (root / "tests/test_spin.py").write_text(textwrap.dedent("""\
        def test_spin(eve_extension):
            gizmo = eve_extension()
            assert gizmo.call("spin", {"times": 2}).value == {"spins": 2}
            assert gizmo.call("spin", {"times": 13}).status == "blocked"
        """))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                         cwd=root, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed" in run.stdout


def test_the_eve_agent_fixture_builds_and_loads_an_app(
    eve_agent: Callable[..., AgentHarness], tmp_path: Path,
) -> None:
    root = make_app(tmp_path / "app", ["acme-crm"], {
        "extensions/crm.py": mount_file("acme_crm", 'api_key="k", region="us"')})
    agent = eve_agent(root)
    assert (root / ".eve/compile/compiled-agent.json").is_file()
    assert agent.call("crm__search", {"query": "ada"}).value["region"] == "us"
    assert agent.state("extensions/crm:requests") == 1
    outcome = agent.fire("action.call", tool="crm__search", arguments={"query": "x"})
    assert [(e["mount"], e["outcome"]) for e in outcome.trace] == [("crm", "proceed")]


def test_the_plugin_module_imports_nothing_heavy() -> None:
    code = ("import sys; import eve_build.testing.plugin; "
            "print(sorted(m for m in ('pydantic', 'eve_build.runtime', 'eve_build.testing.harness',"
            " 'eve_build.extension.build') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"
