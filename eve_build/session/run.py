"""The core of `eve run` (and of each HTTP message): open the store and the agent,
resume or start a session, handle one message, commit the turn.

    result = run_message(Path("."), "hello", RunRequest(model="test"))

A failed turn raises its DiagnosticsError before anything is committed, so the
store keeps exactly the turns that finished.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from eve_build.errors import EveBuildError
from eve_build.runtime.approval import Approver
from eve_build.sdk.interaction import interacting
from eve_build.session.extra import require_agent_extra
from eve_build.session.models import require_model
from eve_build.session.problems import session_moved_on
from eve_build.session.storage import Storage, StoredSession, open_storage
from eve_build.session.transcript import Listener, RunResult, ignore
from eve_build.startup import release_collection

if TYPE_CHECKING:
    from eve_build.runtime.agent import Agent
    from eve_build.session.asking import GivenAnswers
    from eve_build.session.engine import Session, SessionOptions


@dataclass(frozen=True)
class RunRequest:
    model: str | None = None
    session: str | None = None  # resume this one
    approve: bool = False
    max_requests: int = 50
    extensions: Sequence[Path] = field(default=())


def locate_app_root(path: Path) -> Path:
    from eve_build.project.app import try_find_app_root

    return try_find_app_root(path.resolve()) or path.resolve()


def run_message(path: Path, text: str, request: RunRequest, *, listener: Listener = ignore,
                approver: Approver | None = None, ask: GivenAnswers | None = None
                ) -> RunResult:
    """One message through a session (new, or resumed with `request.session`); `ask`
    answers its questions (eve_build.session.asking: session/input-required when it
    cannot, with nothing committed)."""
    with open_run(path, request) as opened:
        if ask is not None:
            from eve_build.session.asking import send_asking

            result: RunResult = opened.agent._run(send_asking(lambda: opened.asend(
                text, listener=listener, approver=approver), ask))
            return result
        return opened.agent._run(opened.asend(text, listener=listener, approver=approver))


@dataclass
class OpenRun:
    """A session ready for messages (`eve run` sends one, `eve chat` many, HTTP one per
    request); each finished message is committed as one turn."""

    agent: Agent
    session: Session
    storage: Storage
    exists: bool
    approve: bool = False
    turns: int = 0  # the session's last committed turn this run knows of

    async def asend(self, text: str, *, listener: Listener = ignore,
                    approver: Approver | None = None) -> RunResult:
        """One message; a stored session is claimed for it (session/busy while another
        process runs a turn of it) and must not have moved on since it was read."""
        given = approver or ((lambda _: True) if self.approve else None)
        if not self.exists:  # nobody else knows the id before its first commit
            result = await self.session.asend(text, listener=listener, approver=given)
            self.turns = commit_session(self.storage, self.session, False)
            self.exists = True
            return result
        async with self.storage.holding(self.session.id) as claim:
            if claim.turns != self.turns:
                raise session_moved_on(self.storage.where, self.session.id, self.turns,
                                       claim.turns)
            result = await self.session.asend(text, listener=listener, approver=given)
            self.turns = commit_session(self.storage, self.session, True, after=self.turns)
        return result


@contextlib.contextmanager
def open_run(path: Path, request: RunRequest) -> Iterator[OpenRun]:
    """The store, the agent (its snapshot restored when resuming) and the session."""
    root = locate_app_root(path)
    require_model(root, request.model, request.session is not None)  # first, and fast
    require_agent_extra()
    from eve_build.host import load_agent

    storage = open_storage(root)
    try:
        stored = storage.require(request.session) if request.session else None
        with interacting(model=derive_setup_model(root, request, stored)), load_agent(
                root, extensions=request.extensions,
                snapshot=stored.snapshot if stored else None) as agent:
            session = open_session(agent, root, stored,
                                   derive_options(request, stored, agent.environ))
            release_collection()  # started: eve_build.startup
            yield OpenRun(agent, session, storage, stored is not None, request.approve,
                          stored.turns if stored else 0)
    finally:
        storage.close()


def derive_setup_model(root: Path, request: RunRequest, stored: StoredSession | None
                       ) -> str | None:
    """The model the session will use, for `ctx.model` in local extensions' `setup` (which
    runs while the agent loads, before the session opens); None when it is not known yet."""
    from eve_build.session.models import read_early_model

    try:
        choice = read_early_model(root, request.model, stored.model if stored else None)
    except EveBuildError:  # no model: the session says so when it opens
        return None
    return choice.name if choice is not None else None


def derive_options(request: RunRequest, stored: StoredSession | None = None,
                   environ: Mapping[str, str] | None = None) -> SessionOptions:
    """The session's options; `environ` is the loaded agent's (the process environment
    over the project's `.env.local` and `.env`), else the process's."""
    from eve_build.session.engine import SessionOptions

    return SessionOptions(model=request.model, max_requests=request.max_requests,
                          environ=dict(os.environ if environ is None else environ),
                          recorded=stored.model if stored is not None else None)


def open_session(agent: Agent, root: Path, stored: StoredSession | None,
                 options: SessionOptions) -> Session:
    """A Session with the stored messages as its history (a new id when `stored` is None)."""
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    from eve_build.session.engine import Session

    history = ModelMessagesTypeAdapter.validate_python(stored.messages) if stored else []
    session_id = stored.id if stored else uuid.uuid4().hex[:12]
    return Session(agent, root, session_id, options, history)


def commit_session(storage: Storage, session: Session, exists: bool, *,
                   after: int | None = None) -> int:
    """Store the turn: the new messages, the agent's snapshot, custom messages, usage
    (with `after`: only on top of that turn, else session/moved-on). Its number."""
    from eve_build.session.dumping import dump_messages

    if not exists and storage.read(session.id) is None:  # the first turn creates it
        storage.create(session.model, session.id)
    messages = dump_messages(session.pending)
    usage = session.last_usage
    number = storage.commit(session.id, list(messages), session.agent.snapshot(),
                            list(session.custom), usage, session.model, after=after)
    session.pending.clear()
    session.custom.clear()
    return number
