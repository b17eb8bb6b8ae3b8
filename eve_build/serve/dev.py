"""`eve dev` serving: every good build becomes a generation swapped into the server.

The dev loop (eve_build.dev.loop) runs on a thread of its own; after each good round
the new generation is loaded there (imports are slow, the server keeps
answering), then handed to the server's event loop, which swaps it in. Requests
already running finish on the generation they started on. A round whose build
failed, or whose agent does not load, keeps the current generation. A change to
the local extensions (no build) loads the current build again with them and swaps
that in.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from eve_build.dev.loop import (
    Changes,
    DevSession,
    Generation,
    LocalRound,
    run_dev,
    watch_with_watchfiles,
)
from eve_build.diagnostics import Diagnostic
from eve_build.errors import DiagnosticsError, UsageError, describe_error
from eve_build.serve.generation import Host, open_generation
from eve_build.serve.request import CHANNEL_TIMEOUT

logger = logging.getLogger("eve_build.serve")

Submit = Callable[[Callable[[], object]], object]
Watch = Callable[[list[Path], threading.Event], Iterable[Changes]]


@dataclass
class DevServer:
    """Turns rounds of the dev loop into generations of `host`."""

    host: Host
    root: Path
    submit: Submit  # runs a callable on the server's event loop
    environ: Mapping[str, str] | None = None
    channel_timeout: float = CHANNEL_TIMEOUT
    extensions: tuple[Path, ...] = ()  # `-e` local extensions, loaded with every generation
    load_failures: list[tuple[int, list[Diagnostic]]] = field(default_factory=list)
    serving: int | None = None  # the generation last handed to the server

    def on_round(self, generation: Generation) -> list[Diagnostic]:
        """Load a good round's agent and have it swapped in; the load's problems, if any."""
        if not generation.ok:
            return []
        return self._load(generation.number)

    def on_local_change(self) -> list[Diagnostic]:
        """The local extensions changed: load the same build again, with them, and swap."""
        current = self.host.current
        return [] if current is None else self._load(current.number)

    def _load(self, number: int) -> list[Diagnostic]:
        try:
            loaded = open_generation(self.root, number, environ=self.environ,
                                     channel_timeout=self.channel_timeout, fresh=True,
                                     extensions=self.extensions)
        except DiagnosticsError as exc:
            self.load_failures.append((number, list(exc.diagnostics)))
            return list(exc.diagnostics)
        self.submit(lambda: self.host.swap(loaded))
        return []


def derive_app_root(session: DevSession) -> Path:
    """Where the dev loop's builds write `.eve/`: the app, or `agents/NAME` of a workspace."""
    return session.output_root


def dev_lifespan(
    session: DevSession, host: Host, *, on_round: Callable[[Generation, list[Diagnostic]], None],
    on_local: Callable[[LocalRound], None] | None = None,
    environ: Mapping[str, str] | None = None, channel_timeout: float = CHANNEL_TIMEOUT,
    watch: Watch = watch_with_watchfiles,
) -> Callable[[object], contextlib.AbstractAsyncContextManager[None]]:
    """A lifespan that runs the dev loop on a thread while the server runs."""
    if not session.app_root.is_dir():
        raise UsageError(f"`{session.app_root}` is not a folder, so there is nothing to watch",
                         "pass the app (or workspace) root with `--path`")

    @contextlib.asynccontextmanager
    async def lifespan(_app: object) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        server = DevServer(host, derive_app_root(session),
                           lambda call: loop.call_soon_threadsafe(call), environ,
                           channel_timeout, session.loaded_extensions)
        stop = threading.Event()

        def each(generation: Generation) -> None:
            problems = server.on_round(generation)
            if generation.ok and not problems:
                server.serving = generation.number
            session.record_status(generation, problems, server.serving)
            on_round(generation, problems)

        def each_local(round_: LocalRound) -> None:
            if on_local is not None:
                on_local(round_)
            for problem in server.on_local_change():
                logger.error("%s", problem.render())

        def loop_forever() -> None:
            try:
                run_dev(session, each, watch=lambda paths: watch(paths, stop),
                        on_local=each_local)
            except Exception as exc:  # the server stays up; say why rebuilding stopped
                logger.error("the dev loop stopped: %s", describe_error(exc))

        thread = threading.Thread(target=loop_forever, name="eve-dev-loop", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join(timeout=5)

    return lifespan
