"""Which model a turn uses (the one answer), and opening it through pydantic-ai.

Order (DESIGN section 12, issue 30): `--model` (or `model` of `POST /.eve/v1/sessions`
for that session's first turn) > `EVE_MODEL` > the model the resumed session recorded
in the store > `define_agent(model=...)` of the tree whose turn it is (a subagent's own,
else the root agent's). `derive_model_choice` is that order, the only place it is
written: `eve run`, `eve chat`, the session routes and `eve sessions show` all ask it.
Names are pydantic-ai's `provider:model`; `test` is pydantic-ai's TestModel (offline, no
key). Each way a name can fail to open is its own diagnostic naming the name, the
provider or the variable; no key value is ever shown.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eve_build.session.errors import session_error
from eve_build.settings import parse_setting

if TYPE_CHECKING:
    from pydantic_ai.models import Model
    from pydantic_ai.settings import ModelSettings

MODEL_VARIABLE = "EVE_MODEL"
TIMEOUT_VARIABLE = "EVE_MODEL_TIMEOUT"
MODEL_TIMEOUT = 120.0
"""Seconds one model request may take before the session gives up on it."""
STREAM_VARIABLE = "EVE_MODEL_STREAM"
"""`0`: never ask the model's server to stream (1, the default: stream while it does)."""
RETRIES_VARIABLE = "EVE_MODEL_RETRIES"
MODEL_RETRIES = 2
"""How often the provider's SDK retries a failed request (429, 5xx, a dropped line)."""
TEST_MODEL = "test"
KEY_PATTERN = re.compile(r"`([A-Z][A-Z0-9_]*_(?:KEY|TOKEN)[A-Z0-9_]*)`")


@dataclass(frozen=True)
class ModelChoice:
    """A model name and where it came from (`--model`, `EVE_MODEL`, a define_agent file)."""

    name: str
    source: str


RECORDED_SOURCE = "the session's recorded model"


def derive_model_choice(given: str | None, environ: Mapping[str, str], own: str | None,
                        root: str | None, *, recorded: str | None = None,
                        agent_file: str = "agent/agent.py",
                        own_file: str | None = None) -> ModelChoice:
    """The model for a turn of a tree, and where it came from: `given` (`--model`), else
    `EVE_MODEL`, else `recorded` (the resumed session's model in the store), else the
    tree's own define_agent model (in `own_file`), else the root's (in `agent_file`).
    Raises session/model-missing."""
    if given:
        return ModelChoice(given, "`--model`")
    if environ.get(MODEL_VARIABLE):
        return ModelChoice(environ[MODEL_VARIABLE], f"`{MODEL_VARIABLE}`")
    if recorded:
        return ModelChoice(recorded, RECORDED_SOURCE)
    if own:
        return ModelChoice(own, f"`define_agent(model=...)` in `{own_file or agent_file}`")
    if root:
        return ModelChoice(root, f"`define_agent(model=...)` in `{agent_file}`")
    raise session_error("session/model-missing", "no model is configured for this agent",
                        "pass `--model provider:model` (for example `--model openai:gpt-4.1`), "
                        f"set `{MODEL_VARIABLE}`, or set `define_agent(model=...)` in "
                        f"`{agent_file}`; `--model test` runs offline without a key",
                        title="cannot start a session")


COMPILED_FILE = ".eve/compile/compiled-agent.json"
"""eve_build.formats.compiled.COMPILED_PATH (a test keeps them equal), read here as plain
JSON: the first error must come before pydantic's models are built."""


def require_model(app_root: Path, given: str | None, resumed: bool) -> None:
    """Raise `session/model-missing` at once when nothing names a model: no `given`
    (`--model`), no `EVE_MODEL` (the environment, `.env.local`, `.env`), no
    `define_agent(model=...)` in the compiled root agent. Imports neither the model
    engine nor the agent. A `resumed` session (its model is in the store) and an agent
    that is not built or does not read are left to the full path, which says what is
    wrong with them."""
    if not (given or resumed):
        read_early_model(app_root, None)


def read_early_model(app_root: Path, given: str | None, recorded: str | None = None
                     ) -> ModelChoice | None:
    """The root agent's model choice from what is known before the agent loads (the
    compiled root agent read as plain JSON, the environment over the project's `.env`
    files); None when the compiled agent cannot be read. Raises `session/model-missing`
    when nothing names a model."""
    import json

    from eve_build.project.envfiles import layer_environ, read_env_files

    try:
        root = json.loads((app_root / COMPILED_FILE).read_text(encoding="utf-8"))["root"]
        own = root.get("model")
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if own is not None and not isinstance(own, str):
        return None
    return derive_model_choice(given, layer_environ(read_env_files(app_root)), None, own,
                               recorded=recorded)


def derive_agent_file(module: str | None, agent_dir: str, base: str = "eve_agent") -> str:
    """The file of a compiled tree's `agentModule`, as diagnostics show it:
    `agent/subagents/helper/agent.py` for the agent's own (an override folder's included),
    `acme_crm/extension/subagents/reviewer/agent.py` for a package's."""
    if not module:
        return f"{agent_dir}/agent.py" if agent_dir not in ("", ".") else "agent.py"
    path = module.replace(".", "/") + ".py"
    if module.startswith(base + "."):
        inside = path.removeprefix(base + "/")
        return f"{agent_dir}/{inside}" if agent_dir not in ("", ".") else inside
    return path


def open_model(choice: ModelChoice, environ: Mapping[str, str] | None = None) -> Model:
    """The pydantic-ai Model for `choice` (raises a DiagnosticsError naming what is wrong).

    The provider reads its key and endpoint from `environ` (the loaded agent's: the
    process environment over the project's `.env.local` and `.env`) when given."""
    from pydantic_ai.exceptions import UserError
    from pydantic_ai.models import infer_model, parse_model_id
    from pydantic_ai.providers import infer_provider_class

    from eve_build.project.envfiles import lending

    name, title = choice.name, "cannot start a session"
    if name == TEST_MODEL:
        from pydantic_ai.models.test import TestModel

        return TestModel()
    provider, model = parse_model_id(name)
    if not provider or not model:
        raise session_error("session/model-provider-missing",
                            f"the model `{name}` (from {choice.source}) names no provider",
                            "write it as `provider:model`, for example `openai:gpt-4.1`, "
                            "`anthropic:claude-sonnet-4-5` or `openai-chat:NAME` for any "
                            "OpenAI-compatible server (`OPENAI_BASE_URL`)", title=title)
    try:
        infer_provider_class(provider)
    except ValueError:
        raise session_error("session/provider-unknown",
                            f"the model `{name}` (from {choice.source}) names the provider "
                            f"`{provider}`, which pydantic-ai does not know",
                            "use one of pydantic-ai's providers: `openai`, `openai-chat`, "
                            "`anthropic`, `google`, `groq`, `mistral`, `ollama`, ...",
                            title=title) from None
    except ImportError as exc:
        raise _extra_missing(name, provider, exc) from None
    try:
        with lending(environ or {}):
            opened = infer_model(name)
    except ImportError as exc:
        raise _extra_missing(name, provider, exc) from None
    except UserError as exc:
        variable = KEY_PATTERN.search(str(exc))
        if variable is not None:
            raise session_error("session/api-key-missing",
                                f"the provider `{provider}` of `{name}` needs "
                                f"`{variable.group(1)}`, which is not set",
                                f"set `{variable.group(1)}` in the environment, or use "
                                "`--model test` to run offline", title=title) from None
        raise session_error("session/model-failed",
                            f"the model `{name}` cannot be opened: {exc}",
                            "check the model name and the provider's variables",
                            title=title) from None
    from eve_build.session.nostream import StreamOrNot

    return StreamOrNot(opened, streams=derive_streaming(environ or {}))


def derive_streaming(environ: Mapping[str, str]) -> bool:
    """False when `EVE_MODEL_STREAM=0`: the server answers only whole completions (an
    invalid value is refused, a SettingError)."""
    raw = environ.get(STREAM_VARIABLE, "")
    return not raw or parse_setting(STREAM_VARIABLE, raw) != 0


def _extra_missing(name: str, provider: str, exc: ImportError) -> Exception:
    install = re.search(r"`(pip install [^`]+)`", str(exc))
    return session_error("session/provider-extra-missing",
                         f"the provider `{provider}` of `{name}` needs a client library "
                         "this environment lacks",
                         f"install it: {install.group(1) if install else exc}",
                         title="cannot start a session")


def derive_model_settings(environ: Mapping[str, str]) -> ModelSettings:
    """Each request's timeout and the SDK's retries (`EVE_MODEL_TIMEOUT`, `EVE_MODEL_RETRIES`);
    an invalid value is refused (a SettingError), never silently the default."""
    raw_timeout = environ.get(TIMEOUT_VARIABLE, "")
    raw_retries = environ.get(RETRIES_VARIABLE, "")
    timeout = parse_setting(TIMEOUT_VARIABLE, raw_timeout) if raw_timeout else MODEL_TIMEOUT
    retries = (int(parse_setting(RETRIES_VARIABLE, raw_retries)) if raw_retries
               else MODEL_RETRIES)
    derive_streaming(environ)  # refused with the others, before any turn
    settings: dict[str, Any] = {"timeout": timeout, "max_retries": retries}
    return settings  # type: ignore[return-value]  # a TypedDict of these two keys


def describe_endpoint(model: Model) -> str:
    """Where the model is reached (a URL without its password), or its system name."""
    from eve_build.runtime.redaction import redact_url_credentials

    url = getattr(model, "base_url", None)
    return redact_url_credentials(str(url)) if url else str(getattr(model, "system",
                                                                        "the provider"))
