"""The decisive line of a failed command's output: what `eve extension pack` shows."""

from __future__ import annotations

import pytest

from eve_build.process import find_decisive_line, find_missing_requirement

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


BUILD_BACKEND = TRACEBACK + """\

TIP pass --env-dir and --sdist-extract-dir to keep the build environment and sources
ERROR Backend subprocess exited when trying to invoke build_sdist
"""

PIP_BACKEND = """\
Obtaining file:///tmp/gizmo
  Checking if build backend supports build_editable ... done
  Preparing editable metadata (pyproject.toml) ... error
  error: subprocess-exited-with-error

  \u00d7 Preparing editable metadata (pyproject.toml) did not run successfully.
  │ exit code: 1
  ╰─> [20 lines of output]
      Traceback (most recent call last):
        File "/x/hatchling/metadata/core.py", line 553, in readme
          raise OSError(message)
      OSError: Readme file does not exist: MISSING.md
      [end of output]

  note: This error originates from a subprocess, and is likely not a problem with pip.
error: metadata-generation-failed

\u00d7 Encountered error while generating package metadata.
╰─> See above for output.

note: This is an issue with the package mentioned above, not pip.
hint: See above for details.
"""


@pytest.mark.parametrize(("output", "line"), [
    (BUILD_BACKEND, "ValueError: tool.eve.extension.output must be relative"),
    (PIP_BACKEND, "OSError: Readme file does not exist: MISSING.md"),
])
def test_the_backends_reason_wins_over_the_frontends_wrapper_lines(output: str,
                                                                   line: str) -> None:
    assert find_decisive_line(output) == line


HATCHLING_MISSING = """\
* Creating isolated environment: venv+pip...
* Installing packages in isolated environment:
  - eve-build==0.1.0
  - hatchling
> /tmp/build-env/bin/python -m pip --python /tmp/build-env/bin/python install ...
< WARNING: Location '/tmp/wheels' is ignored: it is either a non-existing path or lacks a \
specific scheme.
< ERROR: Could not find a version that satisfies the requirement hatchling (from versions: none)
< ERROR: No matching distribution found for hatchling
ERROR Failed to install requirements from build-system.requires
"""


@pytest.mark.parametrize(("output", "requirement"), [
    (PIP_RESOLVER, "eve-build==0.1.0"),
    (HATCHLING_MISSING, "hatchling"),
    ("ERROR: No matching distribution found for hatchling>=1.25\n", "hatchling>=1.25"),
    (TRACEBACK, None),
])
def test_the_requirement_pip_found_no_distribution_of(output: str,
                                                       requirement: str | None) -> None:
    assert find_missing_requirement(output) == requirement
