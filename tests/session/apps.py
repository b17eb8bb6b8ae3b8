"""A served agent whose channels update state: what the durability tests run.

`POST /count` adds one to the agent's `hits` state with `State.update` (the change
sleeps a little, so two concurrent updates would overlap if the store let them) and
answers the new value; `GET /count` reads it; `POST /slow` sleeps `?seconds=` before
it updates (a request to kill a server in the middle of), after creating the file
`?marker=` names if given (so a test knows the request is in flight).
`schedules/minutely.py` fires every minute and adds one to `ticks`;
`schedules/broken.py` always fails.
"""

from __future__ import annotations

from pathlib import Path

from tests.runtime.apps import compile_app, make_app, mount_file

STATE = """\
import time

from eve_build.sdk import define_state

hits = define_state("hits", lambda: 0)
ticks = define_state("ticks", lambda: 0)


def slow_add(n):
    time.sleep(0.002)
    return n + 1
"""

CHANNEL = """\
from eve_build.sdk import define_channel

from eve_agent.lib.counters import hits, slow_add

{body}

channel = define_channel(route="{route}", handle=handle, method="{method}")
"""

FILES = {
    "extensions/gizmo.py": mount_file("gizmo"),
    "lib/__init__.py": "",
    "lib/counters.py": STATE,
    "channels/count.py": CHANNEL.format(route="/count", method="POST", body=(
        "def handle(request, ctx):\n    return {'hits': hits.update(slow_add)}")),
    "channels/peek.py": CHANNEL.format(route="/count", method="GET", body=(
        "def handle(request, ctx):\n    return {'hits': hits.get()}")),
    "channels/slow.py": CHANNEL.format(route="/slow", method="POST", body=(
        "import pathlib\nimport time\n\n\ndef handle(request, ctx):\n"
        "    if 'marker' in request.query:\n"
        "        pathlib.Path(request.query['marker']).touch()\n"
        "    time.sleep(float(request.query.get('seconds', '5')))\n"
        "    return {'hits': hits.update(slow_add)}")),
    "schedules/minutely.py": (
        "from eve_build.sdk import define_schedule\n\n"
        "from eve_agent.lib.counters import ticks\n\n\n"
        "def run(ctx):\n    return {'ticks': ticks.update(lambda n: n + 1)}\n\n\n"
        'schedule = define_schedule(cron="* * * * *", run=run)\n'),
    "schedules/broken.py": (
        "from eve_build.sdk import define_schedule\n\n\n"
        "def run(ctx):\n    raise RuntimeError('the mail server is down')\n\n\n"
        'schedule = define_schedule(cron="0 0 1 1 *", run=run)\n'),
}


def make_counter_app(root: Path, project: str | None = None) -> Path:
    """The counter app at `root`; `project` renames its `[project] name` (another project
    with the same `agent/` folder: what the scope tests put on one store)."""
    make_app(root, ["gizmo"], FILES)
    if project is not None:
        pyproject = root / "pyproject.toml"
        pyproject.write_text(pyproject.read_text().replace('name = "demo-agent"',
                                                           f'name = "{project}"', 1))
    compile_app(root)
    return root
