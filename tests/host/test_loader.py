"""`load_agent` and `open_agent` live in eve_build.host (above the runtime, the local
extensions and the connections) and answer at every path the docs name."""

from __future__ import annotations

import json
import subprocess
import sys

import grimp
import pytest

import eve_build.host
import eve_build.host.loader
import eve_build.runtime
import eve_build.runtime.loader

PROBE = """
import json, sys
import eve_build.runtime
before = sorted(m for m in sys.modules if m.startswith("eve_build."))
from eve_build.runtime import *
print(json.dumps({"before": before, "load_agent": load_agent.__module__,
                  "open_agent": open_agent.__module__}))
"""


@pytest.mark.parametrize("name", ["load_agent", "open_agent"])
def test_the_documented_paths_answer_with_the_composed_loader(name: str) -> None:
    composed = getattr(eve_build.host.loader, name)

    assert getattr(eve_build.runtime, name) is composed  # docs/runtime.md
    assert getattr(eve_build.runtime.loader, name) is composed  # the path before the move
    assert getattr(eve_build.host, name) is composed
    assert name in dir(eve_build.runtime)


def test_an_unknown_name_is_still_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'load_agents'"):
        eve_build.runtime.load_agents  # noqa: B018
    with pytest.raises(AttributeError, match="no attribute 'load_agents'"):
        eve_build.runtime.loader.load_agents  # noqa: B018


def test_importing_the_runtime_imports_no_room_above_it() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          check=False, timeout=600)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout.splitlines()[-1])

    above = [m for m in answer["before"]
             if m.split(".")[1] in ("host", "local", "node", "connections")]
    assert above == []
    # a star import asks __getattr__ for every name of __all__
    assert answer["load_agent"] == answer["open_agent"] == "eve_build.host.loader"


@pytest.mark.parametrize("above", ["host", "local", "node", "connections"])
def test_no_module_of_the_runtime_imports_a_room_above_it(above: str) -> None:
    graph = grimp.build_graph("eve_build", exclude_type_checking_imports=True, cache_dir=None)

    assert not graph.chain_exists(importer="eve_build.runtime", imported=f"eve_build.{above}",
                                  as_packages=True)
