"""The floor under `eve extension build`: the same tool modules, plain Python and pydantic.

    python bench/floor.py EXTENSION_ROOT [--jobs N]

Imports every module of `EXTENSION_ROOT/extension/tools/` (compiled from source, as a
cold build does: no bytecode is read or written), builds each tool's input model's
JSON Schema (`model_json_schema`) and prints how many it built. No eve-build code runs:
`eve_build.sdk` is a stand-in whose `define_tool` / `define_extension` return their
arguments. `--jobs 1` (the default) does it serially; `--jobs N` forks N processes
after importing pydantic (multiprocessing) and splits the modules between them.

bench/engine_bench.py runs this as a process of its own (interpreter start-up
included, as in a build) and prints eve-build's wall time as a ratio to it.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import types
from pathlib import Path
from typing import Any


def _install_sdk_stand_in() -> None:
    """`from eve_build.sdk import define_tool` without eve-build: the arguments, kept."""
    sdk = types.ModuleType("eve_build.sdk")

    def define(**fields: Any) -> types.SimpleNamespace:
        return types.SimpleNamespace(**fields)

    sdk.define_tool = define  # type: ignore[attr-defined]
    sdk.define_extension = define  # type: ignore[attr-defined]
    package = types.ModuleType("eve_build")
    package.__path__ = []
    package.sdk = sdk  # type: ignore[attr-defined]
    sys.modules.update({"eve_build": package, "eve_build.sdk": sdk})


def build_schemas(files: list[str]) -> int:
    """Import each file as its own module and build its tool's input schema."""
    import pydantic  # noqa: F401  (already imported in a forked worker)

    built = 0
    for file in files:
        name = f"floor_tools.{Path(file).stem}"
        module = types.ModuleType(name)
        module.__file__ = file
        sys.modules[name] = module
        exec(compile(Path(file).read_bytes(), file, "exec"), module.__dict__)
        tool = getattr(module, "tool", None)
        if tool is not None:
            tool.input.model_json_schema()
            built += 1
    return built


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", type=Path)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    sys.dont_write_bytecode = True
    _install_sdk_stand_in()
    import pydantic  # noqa: F401  (before the fork: every worker starts with it)

    files = [str(p) for p in sorted((args.root / "extension" / "tools").glob("*.py"))]
    if args.jobs <= 1 or len(files) < 2:
        built = build_schemas(files)
    else:
        chunks = [files[index::args.jobs] for index in range(args.jobs)]
        with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
            built = sum(pool.map(build_schemas, chunks))
    print(built)


if __name__ == "__main__":
    main()
