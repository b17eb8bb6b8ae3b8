"""The agent the serve tests run: two mounts of acme-crm and channels that misbehave.

`crm` (region eu) answers `POST /crm/webhook`; `company` (region us) is the same
package's channel moved to `POST /company/webhook` by an agent-root override, so
the two answers show which mount ran. The agent's own channels each show one bad
handler: raising, hanging, unserializable, or reading a body that is not JSON.
"""

from __future__ import annotations

from pathlib import Path

from tests.runtime.apps import compile_app, make_app, mount_file

CHANNEL = """\
from eve_build.sdk import define_channel

{body}

channel = define_channel(route="{route}", handle=handle, method="{method}")
"""

FILES = {
    "extensions/crm.py": mount_file("acme_crm", 'api_key=env("CRM_API_KEY"), region="eu"'),
    "extensions/company.py": mount_file("acme_crm", 'api_key=env("COMPANY_KEY"), region="us"'),
    "channels/company__webhook.py": (
        "from acme_crm.extension.channels.webhook import handle\n"
        "from eve_build.sdk import define_channel\n\n"
        'channel = define_channel(route="/company/webhook", handle=handle, method="POST")\n'),
    "channels/boom.py": CHANNEL.format(route="/boom", method="POST", body=(
        "def handle(request, ctx):\n    raise ValueError('the ledger is closed')")),
    "channels/hang.py": CHANNEL.format(route="/hang", method="POST", body=(
        "import asyncio\n\n\nasync def handle(request, ctx):\n    await asyncio.sleep(60)")),
    "channels/unserializable.py": CHANNEL.format(route="/unserializable", method="GET", body=(
        "def handle(request, ctx):\n    return {'when': object()}")),
    "channels/echo.py": CHANNEL.format(route="/echo", method="POST", body=(
        "async def handle(request, ctx):\n"
        "    data = await request.json()\n"
        "    return {'got': data, 'query': dict(request.query),\n"
        "            'agent': request.headers.get('x-agent'), 'channel': ctx.name}")),
    "channels/hello.py": CHANNEL.format(route="/hello", method="GET", body=(
        "def handle(request, ctx):\n    return 'hello ' + request.query.get('name', 'you')")),
    "schedules/tick.py": (
        "from eve_build.sdk import define_schedule\n\n\n"
        "def run(ctx):\n    return {'ticked': ctx.name}\n\n\n"
        'schedule = define_schedule(cron="@hourly", run=run)\n'),
    "schedules/digest.py": (
        "from eve_build.sdk import define_schedule\n\n"
        'schedule = define_schedule(cron="0 9 * * mon-fri", '
        'markdown="Summarise yesterday\'s tickets.")\n'),
    "schedules/flaky.py": (
        "from eve_build.sdk import define_schedule\n\n\n"
        "def run(ctx):\n    raise RuntimeError('the mail server is down')\n\n\n"
        'schedule = define_schedule(cron="*/5 * * * *", run=run)\n'),
    "hooks/watch.py": (
        "from eve_build.sdk import define_hook\n\nSEEN = []\n\n\n"
        "def observe(event, ctx):\n    SEEN.append((event.name, dict(event.data)))\n\n\n"
        'hook = define_hook(events={"channel.request": observe, "schedule.run": observe})\n'),
}
ENVIRON = {"CRM_API_KEY": "crm-secret", "COMPANY_KEY": "company-secret"}


def make_served_app(root: Path) -> Path:
    """Write and compile the agent at `root`."""
    make_app(root, ["acme-crm", "gizmo"], FILES)
    compile_app(root)
    return root


VERSION = """\
from eve_build.sdk import define_channel


def handle(request, ctx):
    return {{"version": "{version}"}}


channel = define_channel(route="/version", handle=handle, method="GET")
"""
SLOW = """\
from eve_build.sdk import define_channel

STATE = {{}}


async def handle(request, ctx):
    STATE["started"] = True
    await STATE["release"].wait()
    return {{"version": "{version}"}}


channel = define_channel(route="/slow", handle=handle, method="POST")
"""


def write_version(root: Path, version: str) -> set[Path]:
    changed = {root / "agent/channels/version.py", root / "agent/channels/slow.py"}
    (root / "agent/channels").mkdir(parents=True, exist_ok=True)
    (root / "agent/channels/version.py").write_text(VERSION.format(version=version))
    (root / "agent/channels/slow.py").write_text(SLOW.format(version=version))
    return changed
