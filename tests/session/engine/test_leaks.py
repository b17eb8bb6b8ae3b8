"""No credential of the model reaches the terminal, `--json` or an HTTP client (issue 26,
item 12): the password of `OPENAI_BASE_URL` and the key a proxy echoes in its error body."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.mcp.servers import refusing_port
from tests.session.engine.conftest import eve
from tests.session.engine.fake_openai import Script
from tests.session.engine.served import serving_agent

MODEL = "openai-chat:scripted"
PASSWORD = "pw-SECRET-4711"
KEY = "sk-live-KEY-0815"


def _leaky_env(model_env: dict[str, str], url: str, *, password: bool = True
               ) -> dict[str, str]:
    if password:  # httpx then sends `Basic base64(u:PASSWORD)` instead of the key
        url = url.replace("http://", f"http://u:{PASSWORD}@", 1)
    return {**model_env, "OPENAI_BASE_URL": url, "OPENAI_API_KEY": KEY}


def _no_secret(text: str) -> None:
    assert PASSWORD not in text, text
    assert KEY not in text, text
    assert "Traceback" not in text, text


def test_a_reflected_key_and_the_url_password_are_redacted(
        app: Path, model_env: dict[str, str], fake: tuple[str, Script]) -> None:
    env = _leaky_env(model_env, fake[0])
    fake[1].steps = [{"status": 500, "reflect": True}]
    done = eve(app, env, "run", "hi", "--model", MODEL)
    fake[1].steps = [{"status": 500, "reflect": True}]
    as_json = eve(app, env, "run", "hi", "--model", MODEL, "--json")

    assert done.returncode == 1, done.stderr
    assert "error session/model-http-error:" in done.stderr, done.stderr
    assert "you sent Basic [redacted env OPENAI_BASE_URL" in done.stderr, done.stderr
    assert "u:***@127.0.0.1" in done.stderr, done.stderr
    _no_secret(done.stderr + done.stdout)
    assert "cHctU0VDUkVULTQ3MTE" not in done.stderr  # base64 of the password
    assert as_json.returncode == 1
    assert "session/model-http-error" in as_json.stdout + as_json.stderr
    _no_secret(as_json.stderr + as_json.stdout)


def test_a_key_a_proxy_echoes_is_redacted(app: Path, model_env: dict[str, str],
                                          fake: tuple[str, Script]) -> None:
    fake[1].steps = [{"status": 502, "reflect": True}]
    done = eve(app, _leaky_env(model_env, fake[0], password=False), "run", "hi", "--model",
               MODEL, "--json")

    assert done.returncode == 1, done.stderr
    assert "you sent Bearer [redacted env OPENAI_API_KEY]" in done.stdout, done.stdout
    _no_secret(done.stderr + done.stdout)


def test_an_unreachable_model_hides_the_url_password(app: Path,
                                                    model_env: dict[str, str]) -> None:
    with refusing_port() as port:  # bound, never listening: nothing answers there
        env = _leaky_env(model_env, f"http://127.0.0.1:{port}/v1")
        done = eve(app, env, "run", "hi", "--model", MODEL)
        as_json = eve(app, env, "run", "hi", "--model", MODEL, "--json")

    assert "error session/model-unreachable:" in done.stderr, done.stderr
    assert "http://u:***@127.0.0.1:" in done.stderr, done.stderr
    _no_secret(done.stderr + done.stdout)
    assert "session/model-unreachable" in as_json.stdout + as_json.stderr
    _no_secret(as_json.stderr + as_json.stdout)


@contextmanager
def _serve(app: Path, env: dict[str, str]) -> Iterator[str]:
    with serving_agent(app, {**env, "EVE_MODEL": MODEL},
                       "-e", str(app / "ext/talk.py")) as (url, served):
        yield url
    _no_secret(served.stderr_text)


def test_the_502_body_over_http_holds_no_credential(
        app: Path, model_env: dict[str, str], fake: tuple[str, Script]) -> None:
    with _serve(app, _leaky_env(model_env, fake[0], password=False)) as url, \
            httpx.Client(base_url=url, timeout=60) as client:
        session = client.post("/.eve/v1/sessions").json()["id"]
        fake[1].steps = [{"status": 500, "reflect": True}]
        failed = client.post(f"/.eve/v1/sessions/{session}/messages", json={"text": "hi"})
        fake[1].steps = [{"status": 500, "reflect": True}]
        streamed = client.post(f"/.eve/v1/sessions/{session}/messages", json={"text": "hi"},
                               headers={"Accept": "text/event-stream"})

    assert failed.status_code == 502, failed.text
    assert "[redacted env OPENAI_API_KEY]" in failed.text, failed.text
    _no_secret(failed.text)
    assert "event: error" in streamed.text, streamed.text
    _no_secret(streamed.text)
