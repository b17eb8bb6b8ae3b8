"""Bodies a client gets wrong are 400s over real HTTP, never 500 serve/internal-error:
JSON nested 100000 deep, a lone surrogate, a bad model."""

from __future__ import annotations

import httpx
import pytest

from tests.session.engine.fake_openai import Script
from tests.session.engine.test_http import TIMEOUT, served

__all__ = ["served"]  # the fixture: a real `eve serve` of the session agent

DEEP = b"[" * 100_000 + b"]" * 100_000
DEEP_OBJECT = b'{"text": ' + DEEP + b"}"


def test_deep_json_and_lone_surrogates_are_400(served: str, fake: tuple[str, Script]) -> None:
    # declared as JSON, as the admission policy asks of every /.eve/ body
    with httpx.Client(base_url=served, timeout=TIMEOUT,
                      headers={"content-type": "application/json"}) as client:
        session = client.post("/.eve/v1/sessions").json()["id"]
        answers = [
            client.post("/.eve/v1/sessions", content=DEEP),
            client.post("/.eve/v1/sessions", content=DEEP_OBJECT),
            client.post(f"/.eve/v1/sessions/{session}/messages", content=DEEP),
            client.post(f"/.eve/v1/sessions/{session}/messages", content=DEEP_OBJECT),
            client.post(f"/.eve/v1/sessions/{session}/messages",
                        content=b'{"text": "\\ud800"}'),
            client.post("/.eve/v1/sessions", content=b'{"model": "\\ud800"}'),
        ]
        fake[1].steps = [{"text": "still here"}]
        after = client.post(f"/.eve/v1/sessions/{session}/messages", json={"text": "hi"})

    for answer in answers:
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"]["code"] == "session/body-invalid", answer.text
    assert "nested too deeply" in answers[0].json()["error"]["message"]
    assert "surrogate" in answers[4].json()["error"]["message"]
    assert after.status_code == 200 and after.json()["reply"].strip() == "still here"


@pytest.mark.parametrize(("model", "code"), [
    ("gpt-4.1", "session/model-provider-missing"),
    ("nosuch:model", "session/provider-unknown"),
])
def test_a_bad_model_name_in_the_body_is_400(served: str, model: str, code: str) -> None:
    with httpx.Client(base_url=served, timeout=TIMEOUT) as client:
        answer = client.post("/.eve/v1/sessions", json={"model": model})

    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["code"] == code
    assert f"`{model}`" in answer.json()["error"]["message"]
