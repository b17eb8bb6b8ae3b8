"""The decisive line of a failed command's output: what `eve extension pack` shows."""

from __future__ import annotations

import pytest

from eve_build.process import find_decisive_line

PIP_RESOLVER = """\
* Creating isolated environment: venv+pip...
* Installing packages in isolated environment:
  - eve-build==0.1.0
  - hatchling
> /tmp/build-env/bin/python -m pip --python /tmp/build-env/bin/python install ...
< ERROR: Could not find a version that satisfies the requirement eve-build==0.1.0 (from: none)
< ERROR: No matching distribution found for eve-build==0.1.0
< [notice] A new release of pip is available: 24.0 -> 25.3
ERROR Failed to install requirements from build-system.requires
"""

TRACEBACK = """\
* Getting build dependencies for wheel...
Traceback (most recent call last):
  File "/x/hatchling/build.py", line 58, in build_wheel
    return os.path.basename(next(builder.build(directory=wheel_directory)))
  File "/x/eve_build/hatch/plugin.py", line 40, in initialize
    raise ValueError("tool.eve.extension.output must be relative")
ValueError: tool.eve.extension.output must be relative
"""


@pytest.mark.parametrize(("output", "line"), [
    (PIP_RESOLVER, "ERROR: No matching distribution found for eve-build==0.1.0"),
    (TRACEBACK, "ValueError: tool.eve.extension.output must be relative"),
    ("building...\nerror: invalid command 'bdist_wheel'\n",
     "error: invalid command 'bdist_wheel'"),
    ("nothing useful\n", None),
])
def test_the_decisive_line(output: str, line: str | None) -> None:
    assert find_decisive_line(output) == line
