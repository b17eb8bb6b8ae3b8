"""An agent whose acme-crm mount reads an env secret, and what `eve call` of it costs now and
before issue 23 (used by `reliability_bench.py --redaction`).

The agent overrides `crm__search` twice over: `crm__search` answers, `crm__fail` raises with
its mount's key in the message (so every call is redacted). Timed: `call_tool` in this
process with the agent's redactor and with an empty one, and whole `eve call` processes of
this tree and of the baseline checkout, wall and CPU time (user + sys of the child).
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from eve_build.consumer.build import build_agent
from eve_build.extension.build import build_extension
from eve_build.runtime import load_agent
from eve_build.runtime.redaction import Redactor

REPO = Path(__file__).resolve().parents[1]
SECRET = "sk-live-0123456789abcdef"
WORKSPACE = """[project]
name = "bench-agent"
version = "0.1.0"

[tool.uv.workspace]
members = ["extensions/*"]
"""
TOOL = """from pydantic import BaseModel
from acme_crm.extension.extension import extension
from eve_build.sdk import define_tool


class In(BaseModel):
    query: str = ""


def execute(input, ctx):
    {body}


tool = define_tool(description="Bench.", input=In, execute=execute)
"""
FILES = {
    "instructions.md": "A bench agent.\n",
    "extensions/crm.py": ("from eve_build.sdk import env\nfrom acme_crm import acme_crm\n\n"
                          'mount = acme_crm(api_key=env("CRM_API_KEY"), region="eu")\n'),
    "tools/crm__search.py": TOOL.format(body="return {'region': extension.config.region}"),
    "tools/fail.py": TOOL.format(
        body="raise RuntimeError('the CRM refused ' + extension.config.api_key)"),
}


def make_app(root: Path) -> Path:
    shutil.copytree(REPO / "fixtures/extensions/acme-crm", root / "extensions/acme-crm",
                    ignore=shutil.ignore_patterns("build", "dist"))
    (root / "pyproject.toml").write_text(WORKSPACE)
    for relative, text in FILES.items():
        (root / "agent" / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / "agent" / relative).write_text(text)
    build_extension(root / "extensions/acme-crm")
    build_agent(root)
    return root


def _per_call(agent: object, tool: str, calls: int) -> float:
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        agent.call_tool(tool, {})  # type: ignore[attr-defined]
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _process(python: str, root: Path, tool: str, env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([python, "-m", "eve_build", "call", tool, "--path", str(root)], env=env,
                   capture_output=True, check=False, timeout=120)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure_eve_call(calls: int, baseline: Path) -> list[tuple[str, float]]:
    rows: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory() as folder:
        root = make_app(Path(folder) / "app")
        os.environ["CRM_API_KEY"] = SECRET
        with load_agent(root, local=False) as agent:
            saved = agent.redactor
            for tool in ("crm__search", "fail"):
                _per_call(agent, tool, 200)  # warm
                pairs = []
                for _ in range(5):  # alternated, so drift of the shared machine hits both
                    agent.redactor = saved
                    with_redactor = _per_call(agent, tool, calls * 20)
                    agent.redactor = Redactor()
                    pairs.append((with_redactor, _per_call(agent, tool, calls * 20)))
                agent.redactor = saved
                rows.append((f"`call_tool` {tool}, with the mount's redactor",
                             min(p[0] for p in pairs)))
                rows.append((f"`call_tool` {tool}, empty redactor", min(p[1] for p in pairs)))
        env = {**os.environ, "CRM_API_KEY": SECRET, "EVE_HOME": str(Path(folder) / "home")}
        # one interpreter and its packages; only eve_build differs (PYTHONPATH comes first)
        trees = [("this tree", sys.executable, env),
                 ("baseline", sys.executable, {**env, "PYTHONPATH": str(baseline)})]
        for _, interpreter, environ in trees:  # bytecode written, caches warm
            _process(interpreter, root, "crm__search", environ)
        for tool in ("crm__search", "fail"):
            runs: dict[str, list[tuple[float, float]]] = {name: [] for name, _, _ in trees}
            for _ in range(calls):  # alternated, as above
                for name, interpreter, environ in trees:
                    runs[name].append(_process(interpreter, root, tool, environ))
            for name, _, _ in trees:
                rows.append((f"`eve call {tool}` process, {name}, wall",
                             statistics.median(w for w, _ in runs[name])))
                rows.append((f"`eve call {tool}` process, {name}, CPU (user+sys)",
                             statistics.median(c for _, c in runs[name])))
    return rows
