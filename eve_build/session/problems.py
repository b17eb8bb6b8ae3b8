"""The store's diagnostics: each names the database (file, or URL without password) and the fix.

A store that cannot be used is never repaired or replaced behind the user's back: the
file stays as it was, and the hint says what to do with it.
"""

from __future__ import annotations

from eve_build._version import __version__
from eve_build.diagnostics import error
from eve_build.errors import DiagnosticsError
from eve_build.install_hint import derive_extra_hint

TITLE = "cannot open the session store"


class StoreUnavailable(DiagnosticsError):
    """The store cannot be reached or written now (a server down, a lock held too long):
    at start-up a diagnostic, during a request a 503 with `Retry-After: RETRY_AFTER`
    (eve_build.serve.channels, eve_build.serve.sessions, the `/.eve/ready` route)."""


RETRY_AFTER = "5"
"""Seconds a client is told to wait before it tries again while the store is unavailable."""

ELSEWHERE = "or set EVE_SESSION_STORE to another store"


def store_invalid(where: str, reason: str) -> DiagnosticsError:
    return DiagnosticsError(TITLE, [error(
        "session/store-invalid", where, f"the session store is not a usable SQLite "
        f"database: {reason}; it was left as it is",
        f"move `{where}` away (eve-build then starts a new, empty store) {ELSEWHERE}")])


def session_damaged(where: str, session_id: str, what: str, turn: int | None,
                    reason: str) -> DiagnosticsError:
    """One session holds a record that cannot be read; the other sessions are unaffected."""
    at = f" in turn {turn}" if turn is not None else ""
    return DiagnosticsError(f"cannot read session `{session_id}`", [error(
        "session/store-invalid", where, f"the session `{session_id}` holds {what}{at} that "
        f"cannot be read: {reason}; it was left as it is (the other sessions are not "
        "affected)",
        f"delete that session with `eve sessions delete {session_id}`, or restore the "
        "store from a backup")])


def store_foreign(where: str, tables: list[str]) -> DiagnosticsError:
    shown = ", ".join(tables[:5]) + (", ..." if len(tables) > 5 else "")
    return DiagnosticsError(TITLE, [error(
        "session/store-foreign", where, f"the database holds tables that are not eve-build's "
        f"({shown}) and no eve-build schema version; it was left as it is",
        f"point EVE_SESSION_STORE at a database of its own, or move `{where}` away")])


def store_too_new(where: str, version: int, supported: int) -> DiagnosticsError:
    return DiagnosticsError(TITLE, [error(
        "session/store-too-new", where, f"the session store has schema version {version}; "
        f"eve-build {__version__} knows versions up to {supported} and will not write it",
        f"upgrade eve-build (`pip install -U eve-build`) {ELSEWHERE}")])


def store_unreachable(where: str, reason: str) -> DiagnosticsError:
    return StoreUnavailable(TITLE, [error(
        "session/store-unreachable", where, f"cannot reach the session store: {reason}",
        "check that the database server runs and that EVE_SESSION_STORE names it "
        "(host, port, database, user; the password may come from PGPASSWORD or ~/.pgpass)")])


def store_unwritable(where: str, reason: str) -> DiagnosticsError:
    return StoreUnavailable(TITLE, [error(
        "session/store-unwritable", where, f"cannot write the session store: {reason}",
        f"make `{where}` and its folder writable {ELSEWHERE}")])


def store_disk_full(where: str) -> DiagnosticsError:
    return StoreUnavailable(TITLE, [error(
        "session/store-unwritable", where, "the disk holding the session store is full; "
        "the store itself is intact and nothing was changed",
        "free space on that disk (or set EVE_SESSION_STORE to a store on another one), "
        "then run the command again")])


def store_url_invalid(url: str) -> DiagnosticsError:
    scheme = url.split("://", 1)[0]
    return DiagnosticsError(TITLE, [error(
        "session/store-url-invalid", "EVE_SESSION_STORE", f"the store URL scheme `{scheme}` "
        "is not one eve-build knows",
        "use `sqlite:///ABSOLUTE/PATH`, a file path, or `postgresql://USER@HOST:PORT/DB`")])


def store_url_malformed(shown: str, reason: str) -> DiagnosticsError:
    return DiagnosticsError(TITLE, [error(
        "session/store-url-invalid", "EVE_SESSION_STORE", f"the store URL `{shown}` cannot "
        f"be read: {reason}",
        "write it as `postgresql://USER@HOST:PORT/DB` (an IPv6 host in brackets: "
        "`postgresql://USER@[::1]:5432/DB`)")])


def store_extra_missing(url_where: str) -> DiagnosticsError:
    return DiagnosticsError(TITLE, [error(
        "session/store-extra-missing", url_where, "a PostgreSQL session store needs psycopg 3, "
        "which is not installed", derive_extra_hint("postgres"))])


def session_unknown(where: str, session_id: str) -> DiagnosticsError:
    return DiagnosticsError(f"no session `{session_id}`", [error(
        "session/id-unknown", where, f"there is no session `{session_id}` in the store",
        "list the sessions with `eve sessions list`")])


def store_special_file(where: str, kind: str) -> DiagnosticsError:
    return DiagnosticsError(TITLE, [error(
        "session/store-special-file", where, f"the session store is {kind}, not a regular "
        "file; it was not opened (opening it could block forever)",
        f"remove `{where}` (eve-build then starts a new, empty store) {ELSEWHERE}")])


def store_replaced(where: str, reason: str) -> DiagnosticsError:
    return StoreUnavailable("the session store was replaced", [error(
        "session/store-replaced", where, f"the session store {reason} while this process had "
        "it open; nothing more is committed into the file it opened (that is no longer the "
        "store), so this turn or update is not kept",
        "restart the process to open the store at this path anew; put back a backup of "
        f"`{where}` first if it was deleted by mistake")])


def scope_adopted(legacy: str, owner: str, owner_scope: str, project: str,
                  scope: str, variable: str) -> DiagnosticsError:
    return DiagnosticsError("cannot open the served agent's state", [error(
        "session/scope-adopted", variable, f"the store's legacy state `{legacy}` "
        f"(which every agent folder named `agent/` shared) was adopted by the project "
        f"`{owner}` (now its scope `{owner_scope}`); this agent is the project `{project}`, "
        "so it is not given that state",
        f"to start this agent's own state, set {variable}={scope}; if the adopted state "
        f"was this agent's, set {variable}={owner_scope} (shared with `{owner}`)")])
def session_busy(where: str, session_id: str) -> DiagnosticsError:
    return DiagnosticsError(f"session `{session_id}` is busy", [error(
        "session/busy", where, f"the session `{session_id}` is still answering a message "
        "(in this or another process on the store)", "wait for its reply, then send")])


def session_moved_on(where: str, session_id: str, after: int, turns: int) -> DiagnosticsError:
    return DiagnosticsError(f"session `{session_id}` moved on", [error(
        "session/moved-on", where, f"the session `{session_id}` has {turns} committed turns, "
        f"but this turn started after turn {after}: another process answered it meanwhile; "
        "this turn was not committed", "send the message again: it then starts from the "
        "store's last turn")])
