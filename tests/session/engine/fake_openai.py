"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1, for the tests.

`POST /_script` with a list of steps sets what the next requests get, one step per `POST
/v1/chat/completions`: `{"text": "..."}` (streamed in words when the request streams),
`{"tools": [{"name": ..., "arguments": {...}}]}`, `{"status": 401}` or `{"hang":
seconds}`, `{"drip": seconds}` (a stream of one token every that many seconds, forever:
only a deadline for the whole turn ends it), `{"gate": true}` (held until the test sets
`script.gate`, then the default) or `{"echo": true}` (the text is the request's user
messages joined with `|`); `{"status": 500, "reflect": true}` answers with the request's
`Authorization` header in the error body (a proxy that echoes it); `{"raw": {...}}`
answers that JSON (a broken provider). With no step left the answer is `script.default`
(the text `done` unless a test sets it). `GET /_requests` returns every request body
received, in order. `script.streams = False` makes it a server that does not stream: a
request asking for a stream gets the whole completion as plain JSON all the same (and
the step stays for the request the client sends again without streaming).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route


class Script:
    def __init__(self) -> None:
        self.steps: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        self.default: dict[str, Any] = {"text": "done"}
        self.gate = threading.Event()
        self.streams = True  # False: whole completions only, even when asked to stream


def create_fake(script: Script) -> Starlette:
    async def set_script(request: Request) -> Response:
        script.steps = list(await request.json())
        script.requests.clear()
        return JSONResponse({"steps": len(script.steps)})

    async def requests(request: Request) -> Response:
        return JSONResponse(script.requests)

    async def completions(request: Request) -> Response:
        body = await request.json()
        script.requests.append(body)
        if body.get("stream") and not script.streams and script.steps:
            step = script.steps[0]  # answered whole, unread by the client: asked again
        else:
            step = script.steps.pop(0) if script.steps else script.default
        if step.get("gate"):
            while not script.gate.is_set():
                await asyncio.sleep(0.02)
            step = script.default
        if step.get("echo"):
            step = {"text": "|".join(_user_texts(body))}
        if "hang" in step:
            await asyncio.sleep(float(step["hang"]))
        if "status" in step:
            echoed = (f": you sent {request.headers.get('authorization')}"
                      if step.get("reflect") else "")
            return JSONResponse({"error": {"message": f"scripted {step['status']}{echoed}",
                                           "type": "scripted"}}, status_code=step["status"],
                                headers={"x-should-retry": "false"})
        if "raw" in step:  # a broken provider: this JSON as the answer (or its one chunk)
            if body.get("stream"):
                return StreamingResponse(iter([f"data: {json.dumps(step['raw'])}\n\n",
                                               "data: [DONE]\n\n"]),
                                         media_type="text/event-stream")
            return JSONResponse(step["raw"])
        if body.get("stream") and script.streams:
            return StreamingResponse(_chunks(body["model"], step),
                                     media_type="text/event-stream")
        return JSONResponse(_completion(body["model"], step))

    return Starlette(routes=[Route("/_script", set_script, methods=["POST"]),
                             Route("/_requests", requests),
                             Route("/v1/chat/completions", completions, methods=["POST"])])


def _user_texts(body: dict[str, Any]) -> list[str]:
    texts = []
    for message in body.get("messages", []):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        texts.append(content if isinstance(content, str) else "".join(
            part.get("text", "") for part in content or [] if isinstance(part, dict)))
    return texts


def _calls(step: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"id": f"call_{i}", "type": "function",
             "function": {"name": c["name"], "arguments": json.dumps(c.get("arguments", {}))}}
            for i, c in enumerate(step.get("tools", []))]


def _completion(model: str, step: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": step.get("text")}
    if step.get("tools"):
        message["tool_calls"] = _calls(step)
    return {"id": "cmpl", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": message,
                         "finish_reason": "tool_calls" if step.get("tools") else "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}


async def _chunks(model: str, step: dict[str, Any]) -> AsyncIterator[str]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        data = {"id": "cmpl", "object": "chat.completion.chunk", "created": 0, "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return f"data: {json.dumps(data)}\n\n"

    yield chunk({"role": "assistant", "content": ""})
    while "drip" in step:
        yield chunk({"content": "."})
        await asyncio.sleep(float(step["drip"]))
    for word in (step.get("text") or "").split(" ") if step.get("text") else []:
        yield chunk({"content": word + " "})
        await asyncio.sleep(float(step.get("pause", 0)))
    for index, call in enumerate(_calls(step)):
        yield chunk({"tool_calls": [{"index": index, **call}]})
    yield chunk({}, "tool_calls" if step.get("tools") else "stop")
    usage = {"id": "cmpl", "object": "chat.completion.chunk", "created": 0, "model": model,
             "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5,
                                      "total_tokens": 15}}
    yield f"data: {json.dumps(usage)}\n\n"
    yield "data: [DONE]\n\n"


@contextmanager
def run_fake(port: int = 0) -> Iterator[tuple[str, Script]]:
    """The server on a free port, in a thread, for the life of the block: (base URL, script)."""
    script = Script()
    config = uvicorn.Config(create_fake(script), host="127.0.0.1", port=port,
                            log_level="error", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    bound = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{bound}/v1", script
    finally:
        server.should_exit = True
        thread.join(5)
