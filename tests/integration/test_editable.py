"""`pip install -e .` of an extension: the author's venv imports `build/eve/`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.extension.build import build_extension
from tests.integration.conftest import Venv

pytestmark = pytest.mark.integration

PING_TOOL = '''from pydantic import BaseModel

from eve_build.sdk import define_tool


class PingInput(BaseModel):
    pass


tool = define_tool(description="Answer pong.", input=PingInput, execute=lambda i, ctx: "pong")
'''


def test_editable_install_imports_each_new_build(
    copy_fixture: Callable[[str], Path], make_venv: Callable[[str], Venv], tmp_path: Path
) -> None:
    project = copy_fixture("extensions/acme-crm")
    venv = make_venv("author")

    installed = venv.pip("install", "-q", "--no-build-isolation", "-e", str(project),
                         cwd=project)

    assert installed.returncode == 0, installed.stdout
    assert (project / "build" / "eve" / "acme_crm" / "__init__.py").is_file(), \
        "the editable install runs the eve build once"
    (path_file,) = venv.site_packages.glob("_acme_crm_eve.pth")
    assert path_file.read_text() == f"{project.resolve() / 'build' / 'eve'}\n"
    assert not (venv.site_packages / "acme_crm").exists(), "no copy of the package"
    where = venv.python_c("import acme_crm; print(acme_crm.__file__)", cwd=tmp_path)
    assert where.stdout.strip() == str(project.resolve() / "build/eve/acme_crm/__init__.py")

    (project / "extension" / "tools" / "ping.py").write_text(PING_TOOL)
    build_extension(project)

    imported = venv.python_c(
        "from acme_crm.tools import ping; print(ping.description)", cwd=tmp_path
    )
    assert imported.returncode == 0, imported.stdout
    assert imported.stdout.strip() == "Answer pong."
