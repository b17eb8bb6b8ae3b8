"""`python -m eve_build.node --name NAME [--project DIR]`: run a project extension.

`eve node start` runs this inside the project's own venv; its stderr is the node's log.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path

from eve_build.controls import derive_log_handler
from eve_build.errors import EveBuildError
from eve_build.node.paths import locate_eve_home
from eve_build.node.server import serve_node


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eve_build.node",
                                     description="Serve a project extension on its socket.")
    parser.add_argument("--name", required=True, help="the registered name of the node")
    parser.add_argument("--project", type=Path, default=Path(),
                        help="the project folder holding extension.py")
    options = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO,
                        handlers=[derive_log_handler("%(asctime)s %(levelname)s %(message)s")])
    try:
        asyncio.run(serve_node(options.name, options.project.resolve(), locate_eve_home()))
    except EveBuildError as exc:
        logging.getLogger("eve_build.node").error("%s", exc.message)
        if exc.hint:
            logging.getLogger("eve_build.node").error("hint: %s", exc.hint)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
