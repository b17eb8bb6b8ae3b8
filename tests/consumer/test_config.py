"""Mount config: validated at build time, env values deferred, secrets never repeated."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from eve_build.cli import app
from eve_build.consumer.build import build_agent
from eve_build.formats.compiled import DIAGNOSTICS_PATH
from tests.consumer.conftest import MakeApp, read_json

SECRET = "sk-canary-4242-do-not-print"
MOUNT = "agent/extensions/strict.py"


def _mount(root: Path, arguments: str) -> None:
    (root / MOUNT).write_text(
        "from strict import strict\nfrom eve_build.sdk import env\n\n"
        f"mount = strict({arguments})\n")


@pytest.mark.parametrize(("arguments", "field_line"), [
    ("retries=2", "  - `token`: Field required (missing)"),
    (f"token={SECRET!r}, retries='many'",
     "  - `retries`: Input should be a valid integer, unable to parse string as an integer "
     "(int_parsing)"),
    (f"token={SECRET!r}, colour='red'", "  - `colour`: Extra inputs are not permitted "
     "(extra_forbidden)"),
    ("token=env('STRICT_TOKEN'), retries=[1]",
     "  - `retries`: Input should be a valid integer (int_type)"),
], ids=["missing", "wrong-type", "unknown-field", "env-beside-a-wrong-type"])
def test_config_errors_name_the_file_and_field_never_the_value(
    make_app: MakeApp, arguments: str, field_line: str
) -> None:
    root = make_app("config-errors")
    _mount(root, arguments)

    result = CliRunner().invoke(app, ["build", "--path", str(root)])

    assert result.exit_code == 1
    assert result.output.splitlines()[:3] == [
        f"{MOUNT}:4: error mount/config-invalid: `{MOUNT}`: the config of `strict` is invalid:",
        field_line,
        f"  hint: fix the arguments of the mount factory call in `{MOUNT}`; the options are "
        "described by `strict`'s config model",
    ]
    assert "Traceback" not in result.output
    assert SECRET not in result.output and "many" not in result.output
    assert SECRET not in (root / DIAGNOSTICS_PATH).read_text()


def test_several_config_errors_come_in_one_block(make_app: MakeApp) -> None:
    root = make_app("config-errors")
    _mount(root, "retries='x', colour='red'")

    result = CliRunner().invoke(app, ["build", "--path", str(root)])

    diagnostics = read_json(root / DIAGNOSTICS_PATH)
    assert diagnostics["errors"] == 1
    assert diagnostics["items"][0]["message"].splitlines()[1:] == [
        "  - `token`: Field required (missing)",
        "  - `retries`: Input should be a valid integer, unable to parse string as an integer "
        "(int_parsing)",
        "  - `colour`: Extra inputs are not permitted (extra_forbidden)",
    ]
    assert result.exit_code == 1


def test_an_env_value_is_skipped_at_build_and_recorded_by_name(make_app: MakeApp) -> None:
    root = make_app("config-errors")

    mount = build_agent(root).compiled.root.mounts[0]

    assert mount.config == {"token": {"$env": "STRICT_TOKEN"}, "retries": 2}


def test_a_canary_secret_given_through_env_is_written_nowhere(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STRICT_TOKEN", SECRET)
    monkeypatch.setenv("CRM_API_KEY", SECRET)
    root = make_app("config-errors")
    build_agent(root)
    other = make_app("one-mount", "acme-crm", "gizmo")
    build_agent(other)

    for folder in (root, other):
        files = [p for p in folder.rglob("*") if p.is_file()]
        assert any(".eve" in p.parts for p in files)
        assert [p for p in files if SECRET.encode() in p.read_bytes()] == []


def test_an_option_the_model_ignores_is_a_warning(make_app: MakeApp) -> None:
    root = make_app("one-mount", "acme-crm", "gizmo")
    mount = root / "agent" / "extensions" / "crm.py"
    mount.write_text(mount.read_text().replace('region="us"', 'regoin="us"'))

    result = build_agent(root)

    assert [d.render().splitlines()[0] for d in result.warnings] == [
        "agent/extensions/crm.py:9: warning mount/config-unknown-field: "
        "`agent/extensions/crm.py`: `acme-crm` has no config option `regoin`; it is ignored"]
    assert result.compiled.root.mounts[0].config["region"] == "eu"


def test_an_extension_without_config_takes_none(make_app: MakeApp) -> None:
    root = make_app("flat", "gizmo")
    (root / "extensions" / "gizmo.py").write_text(
        "from gizmo import gizmo\nfrom eve_build.sdk import Mount\n\n"
        "mount = Mount(package='gizmo', import_name='gizmo', version='1.0.0', "
        "config={'speed': 3})\n")

    result = CliRunner().invoke(app, ["build", "--path", str(root)])

    assert result.exit_code == 1
    assert ("extensions/gizmo.py:4: error mount/config-invalid: `extensions/gizmo.py`: "
            "`gizmo` takes no config, but the mount gives `speed`") in result.output


CANARY = "canary-region-7731"
FACTORY_EXTENSION = '''\
import os

from pydantic import BaseModel, ConfigDict, Field

from eve_build.sdk import define_extension


class Config(BaseModel):
    model_config = ConfigDict(extra="forbid")

    token: str
    retries: int = 3
    region: str = Field(default_factory=lambda: os.environ["EVE_TEST_CANARY"])


extension = define_extension(config=Config)
'''


@pytest.mark.parametrize("canary", [None, CANARY], ids=["unset", "set"])
def test_a_default_factory_is_not_called_at_build(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch, canary: str | None
) -> None:
    if canary is None:
        monkeypatch.delenv("EVE_TEST_CANARY", raising=False)
    else:
        monkeypatch.setenv("EVE_TEST_CANARY", canary)
    root = make_app("config-errors")
    (root / "packages" / "strict" / "extension" / "extension.py").write_text(FACTORY_EXTENSION)

    mount = build_agent(root).compiled.root.mounts[0]

    assert mount.config == {"token": {"$env": "STRICT_TOKEN"}, "retries": 2}  # no region
    files = [p for p in (root / ".eve").rglob("*") if p.is_file()]
    assert files and [p for p in files if CANARY.encode() in p.read_bytes()] == []


def test_an_unknown_option_warning_is_kept_when_another_option_fails(make_app: MakeApp) -> None:
    from eve_build.errors import DiagnosticsError

    root = make_app("one-mount", "acme-crm", "gizmo")
    mount = root / "agent" / "extensions" / "crm.py"
    mount.write_text(mount.read_text().replace('region="us"', 'regoin="us", max_results="many"'))

    with pytest.raises(DiagnosticsError) as caught:
        build_agent(root)

    codes = [(d.code, d.severity.value) for d in caught.value.diagnostics]
    assert ("mount/config-invalid", "error") in codes
    assert ("mount/config-unknown-field", "warning") in codes
    warning = next(d for d in caught.value.diagnostics if d.code == "mount/config-unknown-field")
    assert "`regoin`" in warning.message and "`region`" in warning.hint
