"""A tool name `<connection>__<tool>` whose connection did not open is that connection's
diagnostic: with a connection `crm` (the agent's) and `crm__api` (the connection `api`
of the mount `crm`), `crm__api__search` is the mounted connection's tool, the longest
connection name it starts with, however the two sort."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from eve_build.runtime.agent import ToolNotFoundError
from eve_build.runtime.calls import ConnectionToolMissingError
from eve_build.runtime.loader import load_agent
from tests.connections.conftest import CRM_CONNECTION, TOKEN
from tests.mcp.servers import refusing_port
from tests.runtime.apps import compile_app, make_app, mount_file

FILES = {
    "extensions/crm.py": mount_file("acme_crm", 'api_key=env("CRM_API_KEY"), region="eu"'),
    "connections/crm.py": '''
        from eve_build.sdk import define_connection, env

        connection = define_connection(url=env("OWN_CRM_URL"), kind="mcp",
                                       headers={"Authorization": env("CRM_API_KEY")})
    ''',
}
MOUNTED = "acme_crm/extension/connections/api.py"
OWN = "agent/connections/crm.py"


@pytest.fixture(scope="module")
def two_crms(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_app(tmp_path_factory.mktemp("crms") / "app", ["acme-crm"], FILES)
    (root / "extensions/acme-crm/extension/connections/api.py").write_text(CRM_CONNECTION)
    compile_app(root)
    return root


@pytest.fixture
def refused() -> Iterator[str]:
    with refusing_port() as port:
        yield f"http://127.0.0.1:{port}/mcp"


def _environ(own: str, mounted: str) -> dict[str, str]:
    return {"EVE_CONNECTION_TIMEOUT": "60", "OWN_CRM_URL": own, "CRM_MCP_URL": mounted,
            "CRM_API_KEY": f"Bearer {TOKEN}"}


def _missing(root: Path, environ: dict[str, str], name: str) -> ToolNotFoundError:
    with (load_agent(root, environ=environ, local=False) as agent,
          pytest.raises(ToolNotFoundError) as caught):
        agent.call_tool(name, {})
    return caught.value


def test_both_down_the_tool_is_the_longer_connections(two_crms: Path, refused: str) -> None:
    with refusing_port() as other:
        environ = _environ(refused, f"http://127.0.0.1:{other}/mcp")
        mounted = _missing(two_crms, environ, "crm__api__search")
        own = _missing(two_crms, environ, "crm__search_more")

    assert isinstance(mounted, ConnectionToolMissingError)
    [problem] = mounted.diagnostics
    assert problem.file == MOUNTED
    assert "`crm__api`" in problem.message
    assert isinstance(own, ConnectionToolMissingError)
    assert [p.file for p in own.diagnostics] == [OWN]


def test_only_the_shorter_down_leaves_the_longers_tools_alone(
        two_crms: Path, refused: str, remote_servers: dict[str, str]) -> None:
    """`crm__api` opened: a name under it that it does not serve is an unknown tool, not
    the failure of `crm`."""
    environ = _environ(refused, remote_servers["sse"])
    unknown = _missing(two_crms, environ, "crm__api__nope")
    own = _missing(two_crms, environ, "crm__nope")

    assert not isinstance(unknown, ConnectionToolMissingError)
    assert "`crm__api__nope`" in str(unknown)
    assert isinstance(own, ConnectionToolMissingError)
    assert [p.file for p in own.diagnostics] == [OWN]


def test_only_the_longer_down_is_named_for_its_tools(
        two_crms: Path, refused: str, remote_servers: dict[str, str]) -> None:
    environ = _environ(remote_servers["sse"], refused)
    mounted = _missing(two_crms, environ, "crm__api__search")
    unknown = _missing(two_crms, environ, "crm__nope")

    assert isinstance(mounted, ConnectionToolMissingError)
    assert [p.file for p in mounted.diagnostics] == [MOUNTED]
    assert not isinstance(unknown, ConnectionToolMissingError)
