"""The `mcp` event class (DESIGN section 14): `mcp.connected`, `mcp.failed` and
`mcp.disconnected` for the agent's own MCP connections, observed by a local extension
that subscribes to the class, like the other classes."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from eve_build.host import load_agent

OBSERVER = '''
    import json
    from pathlib import Path

    from eve_build.sdk import Spec

    LOG = Path(__file__).with_name("events.jsonl")


    def seen(event, ctx):
        with LOG.open("a") as out:
            out.write(json.dumps({"name": event.name, **event.data}) + "\\n")


    def setup(ctx):
        return Spec(events={"mcp": seen})
'''


def test_connections_opening_failing_and_closing_are_observed(
        connected_app: Path, connected_env: dict[str, str], tmp_path: Path) -> None:
    observer = tmp_path / "observer.py"
    observer.write_text(textwrap.dedent(OBSERVER))
    log = tmp_path / "events.jsonl"
    with load_agent(connected_app, environ=connected_env, extensions=[observer]) as agent:
        assert "remote__add" in agent.tools()  # listing opens the connections
        opened = log.read_text().splitlines()
    events = [json.loads(line) for line in log.read_text().splitlines()]

    connected = {e["connection"]: e for e in events if e["name"] == "mcp.connected"}
    assert set(connected) == {"remote", "legacy", "crm__api", "inner"}
    assert connected["remote"]["url"] == connected_env["REMOTE_MCP_URL"]
    assert connected["remote"]["tools"] >= 5 and connected["legacy"]["transport"] == "sse"
    [failed] = [e for e in events if e["name"] == "mcp.failed"]
    assert (failed["connection"], failed["url"]) == ("down", connected_env["DOWN_MCP_URL"])
    assert failed["reason"]
    assert not any(json.loads(line)["name"] == "mcp.disconnected" for line in opened)
    closed = [e for e in events if e["name"] == "mcp.disconnected"]
    assert sorted(e["connection"] for e in closed) == sorted(connected)
    assert {e["reason"] for e in closed} == {"closed by the agent"}
    assert not any("tok-remote" in json.dumps(e) for e in events)  # never a header value
