"""A failed model run as a diagnostic: the provider, the URL or the variable, never a
traceback. The store is untouched: a turn that fails is never committed.

No credential reaches the user or an HTTP client through a failure: the password of
every URL is hidden and the values of the providers' key variables are redacted the
way `env(...)` values are (`[redacted env OPENAI_API_KEY]`), so a provider or proxy
that echoes the `Authorization` header in its error body leaks nothing.
"""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from urllib.parse import unquote, urlsplit

from eve_build.errors import DiagnosticsError, describe_exception
from eve_build.runtime.redaction import Redactor, derive_redactor, redact_url_credentials
from eve_build.session.errors import session_error

KEY_VARIABLES = {
    "openai": "OPENAI_API_KEY", "openai-chat": "OPENAI_API_KEY",
    "openai-responses": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY",
    "google": "GOOGLE_API_KEY", "google-gla": "GOOGLE_API_KEY", "groq": "GROQ_API_KEY",
    "mistral": "MISTRAL_API_KEY", "deepseek": "DEEPSEEK_API_KEY",
    "openrouter": "OPENROUTER_API_KEY", "cohere": "CO_API_KEY",
}
"""The key variable each provider reads, to name it when the provider says 401."""
TITLE = "the turn failed"
SECRET_NAME = re.compile(r"_(?:API_KEY|KEY|TOKEN|SECRET)$")
"""Other variables whose values are redacted too (a provider pydantic-ai added later)."""
AUTHORIZATION = re.compile(r"\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{4,}",
                           re.IGNORECASE)
"""An `Authorization` header's credential an error body echoes (one no variable holds)."""


def derive_model_redactor(environ: Mapping[str, str]) -> Redactor:
    """Redacts the providers' keys and the password of every URL the environment holds."""
    values: dict[str, str] = {}
    for name, value in environ.items():
        if name in KEY_VARIABLES.values() or SECRET_NAME.search(name):
            values[name] = value
        elif "://" in value and "@" in value:
            try:
                password = urlsplit(value).password
            except ValueError:
                continue
            if password:
                values[name] = password
                basic = base64.b64encode(f"{unquote(urlsplit(value).username or '')}:"
                                         f"{unquote(password)}".encode()).decode()
                values[f"{name} (as basic auth)"] = basic
    return derive_redactor(values)


def derive_cleaner(environ: Mapping[str, str] | None = None) -> Callable[[str], str]:
    """A function hiding URL passwords and key values in a text."""
    redactor = derive_model_redactor(os.environ if environ is None else environ)
    return lambda text: AUTHORIZATION.sub(r"\1 [redacted]",
                                          redactor.redact(redact_url_credentials(text)))


def redact_failure(failure: DiagnosticsError, environ: Mapping[str, str] | None = None
                   ) -> DiagnosticsError:
    """`failure` with no URL password and no key value in its messages and hints."""
    clean = derive_cleaner(environ)
    failure.diagnostics = [replace(d, message=clean(d.message), hint=clean(d.hint))
                           for d in failure.diagnostics]
    failure.message = clean(failure.message)
    return failure


def derive_run_failure(exc: BaseException, model: str, endpoint: str,
                       environ: Mapping[str, str] | None = None) -> DiagnosticsError | None:
    """The diagnostic for an exception a pydantic-ai run raised, or None when it is no
    failure of the model (a bug, which keeps its traceback); redacted of credentials."""
    clean = derive_cleaner(environ)
    failure = _derive_failure(exc, model, clean(endpoint), clean)
    return None if failure is None else redact_failure(failure, environ)


def _derive_failure(exc: BaseException, model: str, endpoint: str,
                    clean: Callable[[str], str]) -> DiagnosticsError | None:
    from pydantic_ai.exceptions import (
        ModelAPIError,
        ModelConnectionError,
        ModelHTTPError,
        ModelRequestTimeout,
        ModelTimeoutError,
        UnexpectedModelBehavior,
        UsageLimitExceeded,
    )

    provider = model.partition(":")[0]
    if isinstance(exc, UsageLimitExceeded):
        return session_error("session/request-limit", f"the run stopped: {exc}",
                             "raise the limit with `--max-requests N`, or ask for less",
                             title=TITLE)
    if isinstance(exc, ModelHTTPError):
        return _http_failure(exc.status_code, model, provider, endpoint,
                             clean(str(exc.body)) if exc.body else "")
    if isinstance(exc, ModelTimeoutError | ModelRequestTimeout):
        return session_error("session/model-timeout",
                             f"the model `{model}` at {endpoint} did not answer in time",
                             "check the endpoint, or allow more with `EVE_MODEL_TIMEOUT` "
                             "(seconds)", title=TITLE)
    if isinstance(exc, ModelConnectionError):
        return session_error("session/model-unreachable",
                             f"the model `{model}` cannot be reached at {endpoint}: {exc.message}",
                             "check that the server runs and the URL is right "
                             "(`OPENAI_BASE_URL` for `openai-chat:`)", title=TITLE)
    if isinstance(exc, ModelAPIError):
        return session_error("session/model-http-error",
                             f"the provider `{provider}` failed for `{model}`: {exc.message}",
                             "try again; if it persists, check the provider's status",
                             title=TITLE)
    if isinstance(exc, UnexpectedModelBehavior):
        return session_error("session/model-failed",
                             f"the model `{model}` gave an answer that cannot be used: "
                             f"{exc.message}",
                             "try again, or a stronger model; an unknown tool or bad "
                             "arguments are retried only a few times", title=TITLE)
    if _raised_reading_the_answer(exc):
        return session_error("session/model-failed",
                             f"the model `{model}` at {endpoint} gave an answer that is not "
                             f"what its API promises ({describe_exception(exc, 200)})",
                             "check that the endpoint speaks the provider's API (for "
                             "`openai-chat:`, an OpenAI-compatible chat-completions server)",
                             title=TITLE)
    return None


ANSWER_READERS = ("pydantic_ai/models/", "openai/", "anthropic/", "groq/", "mistralai/",
                  "google/genai/", "cohere/")
"""Where a malformed answer breaks: pydantic-ai's model adapters, the providers' SDKs."""


def _raised_reading_the_answer(exc: BaseException) -> bool:
    """An exception raised while a model adapter or an SDK read the provider's answer
    (`{"choices": "x"}` is an AttributeError there), not by eve-build or user code."""
    if not isinstance(exc, AttributeError | TypeError | KeyError | IndexError | ValueError):
        return False
    frame = exc.__traceback__
    if frame is None:
        return False
    while frame.tb_next is not None:
        frame = frame.tb_next
    where = frame.tb_frame.f_code.co_filename.replace(os.sep, "/")
    return any(f"/site-packages/{part}" in where for part in ANSWER_READERS)


def _http_failure(status: int, model: str, provider: str, endpoint: str,
                  body: str) -> DiagnosticsError:
    variable = KEY_VARIABLES.get(provider, f"the API key variable of `{provider}`")
    shown = variable if variable.startswith("the ") else f"`{variable}`"
    if status in (401, 403):
        return session_error("session/model-auth",
                             f"the provider `{provider}` at {endpoint} refused the key "
                             f"(HTTP {status}) for `{model}`",
                             f"check {shown}: it is wrong, expired or lacks access",
                             title=TITLE)
    if status == 429:
        return session_error("session/model-rate-limited",
                             f"the provider `{provider}` at {endpoint} is rate-limiting "
                             f"`{model}` (HTTP 429)",
                             "wait and try again, or check the account's quota", title=TITLE)
    detail = body[:200]  # cut after the redaction: a cut secret would escape it
    return session_error("session/model-http-error",
                         f"the provider `{provider}` at {endpoint} answered HTTP {status} for "
                         f"`{model}`" + (f": {detail}" if detail else ""),
                         "check the model name; a 5xx is the provider's: try again later",
                         title=TITLE)
