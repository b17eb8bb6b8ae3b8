"""A failed model run as a diagnostic: the provider, the URL or the variable, never a
traceback. The store is untouched: a turn that fails is never committed.
"""

from __future__ import annotations

from eve_build.errors import DiagnosticsError
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


def derive_run_failure(exc: BaseException, model: str, endpoint: str) -> DiagnosticsError | None:
    """The diagnostic for an exception a pydantic-ai run raised, or None when it is no
    failure of the model (a bug, which keeps its traceback)."""
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
        return _http_failure(exc.status_code, model, provider, endpoint, exc.body)
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
    return None


def _http_failure(status: int, model: str, provider: str, endpoint: str,
                  body: object) -> DiagnosticsError:
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
    detail = str(body)[:200] if body else ""
    return session_error("session/model-http-error",
                         f"the provider `{provider}` at {endpoint} answered HTTP {status} for "
                         f"`{model}`" + (f": {detail}" if detail else ""),
                         "check the model name; a 5xx is the provider's: try again later",
                         title=TITLE)
