"""An agent app for the MCP tests: two mounts of acme-crm (each with its own config), a
blocking hook, and tools of its own that raise and that print; built once per session."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES
from tests.runtime.apps import compile_app, make_app, mount_file

TWO_MOUNTS = FIXTURES / "apps/two-mounts-one-package/agent"
APP_FILES = {
    # the second mount's channel moves off the first one's route, as in that fixture
    "channels/company__webhook.py": (TWO_MOUNTS / "channels/company__webhook.py").read_text(),
    "extensions/crm.py": mount_file("acme_crm", 'api_key=env("CRM_API_KEY"), region="eu"'),
    "extensions/company.py": mount_file(
        "acme_crm", 'api_key=env("COMPANY_CRM_KEY"), region="us", max_results=3'),
    "extensions/gate.py": mount_file("hook_block", 'word="forbidden"'),
    "skills/onboarding/SKILL.md": "---\ndescription: Onboard a new customer.\n---\n# Onboarding\n",
    "skills/onboarding/steps.md": "1. Create the account.\n",
    "tools/explode.py": '''
        from pydantic import BaseModel

        from eve_build.sdk import define_tool


        class Input(BaseModel):
            why: str = "on purpose"


        def run(input: Input, ctx: object) -> None:
            raise RuntimeError(f"exploded {input.why}")


        tool = define_tool(description="Always fails.", input=Input, execute=run)
    ''',
    "tools/greet.py": '''
        from pydantic import BaseModel

        from eve_build.sdk import define_tool


        class Input(BaseModel):
            name: str


        def run(input: Input, ctx: object) -> str:
            return f"Hello, {input.name}"


        tool = define_tool(description="Greets in plain text.", input=Input, execute=run)
    ''',
    "tools/noisy.py": '''
        import subprocess
        import sys

        from pydantic import BaseModel

        from eve_build.sdk import define_tool


        class Input(BaseModel):
            pass


        def run(input: Input, ctx: object) -> dict[str, bool]:
            print("a stray print that must not reach the protocol stream")
            subprocess.run([sys.executable, "-c", "print('a child writing to fd 1')"],
                           check=True, timeout=30)
            return {"printed": True}


        tool = define_tool(description="Prints to stdout, then answers.", input=Input,
                           execute=run)
    ''',
}
SECRETS = {"CRM_API_KEY": "crm-key-value", "COMPANY_CRM_KEY": "company-key-value"}


@pytest.fixture(scope="session")
def mcp_app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_app(tmp_path_factory.mktemp("mcp") / "app", ["acme-crm", "hook-block"],
                    APP_FILES)
    compile_app(root)
    return root


@pytest.fixture
def eve_env(tmp_path: Path) -> Callable[..., dict[str, str]]:
    """The environment of an `eve` subprocess: the secrets, EVE_HOME in tmp_path."""

    def create(**extra: str) -> dict[str, str]:
        return {**os.environ, **SECRETS, "EVE_HOME": str(tmp_path / "eve-home"), **extra}

    return create


def eve_command(*args: str) -> list[str]:
    """`eve ARGS` run by this interpreter."""
    return [sys.executable, "-c", "from eve_build.cli import main; main()", *args]


def text_of(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)
