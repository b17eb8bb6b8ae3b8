"""How `eve serve` reports a fault: one redacted log line with its code, a JSON body.

A fault (a channel that raised, a route that failed, a response that cannot be
sent) is one ERROR line on the `eve_build.serve` logger:

    ERROR: channel `boom` (POST /boom): 500 serve/channel-raised: the handler raised ...

Every env value an agent of this process resolved is redacted from it
(eve_build.runtime.redaction). The traceback goes to the same logger at DEBUG,
redacted too: `eve -v serve` shows it, the default log does not. The response body
names the code, never the exception's text (it may hold data).
"""

from __future__ import annotations

import logging
import traceback
from typing import Any

from starlette.responses import JSONResponse

from eve_build.runtime.redaction import redact_known
from eve_build.serve.answers import error_response

logger = logging.getLogger("eve_build.serve")
logger.addHandler(logging.NullHandler())  # a library logs; the application shows it

STATUS_RANGE = range(100, 600)
_FORBIDDEN = (b"\r", b"\n", b"\0")


def log_fault(where: str, status: int, code: str, reason: str,
              error: BaseException | None = None, *, redact: Any = redact_known) -> None:
    """One line `where: status code: reason`, redacted; the traceback only at DEBUG."""
    logger.error("%s", redact(f"{where}: {status} {code}: {reason}"))
    if error is not None and logger.isEnabledFor(logging.DEBUG):
        text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        logger.debug("%s", redact(f"{where}: traceback of the {code} above:\n{text.rstrip()}"))


FAULT_HINT = "the server's log says why (`eve -v serve` adds the traceback)"


def fault_response(code: str, message: str, status: int = 500, hint: str = FAULT_HINT,
                   **context: Any) -> JSONResponse:
    """A fault in the one error shape (eve_build.serve.answers), with any context given
    (`channel`, `limit`)."""
    return error_response(status, code, message, hint, **context)


def find_response_problem(status: object, headers: Any) -> str | None:
    """Why a response cannot go on the wire (None when it can): a status that is not an
    HTTP one, or a header name or value holding CR, LF or NUL (a response split)."""
    # an int, or an IntEnum such as http.HTTPStatus (the MCP SDK answers with those)
    if not isinstance(status, int) or isinstance(status, bool) or status not in STATUS_RANGE:
        return f"its status {status!r} is not an HTTP status (100-599)"
    for name, value in headers or ():
        for part, what in ((name, "name"), (value, "value")):
            raw = part.encode("latin-1", "replace") if isinstance(part, str) else bytes(part)
            if any(bad in raw for bad in _FORBIDDEN) or (what == "name" and not raw):
                shown = raw.decode("latin-1")[:40]
                return (f"its header {what} {shown!r} is empty or holds CR, LF or NUL "
                        "(a header may not start another header)")
    return None
