"""Time what eve-build adds to a pydantic-ai turn: per tool call, per turn, first token.

    python bench/session_bench.py [--turns 200] [--calls 5] [--repeat 3]

Builds, in a temporary folder, an agent with one sync tool `echo`, then runs the same
FunctionModel (one response of --calls parallel `echo` calls, then a streamed text
answer) two ways:

- bare: a pydantic-ai Agent whose tool is a plain function doing the same work;
- eve: `Session.asend` on the loaded agent (message.received pipeline, `eve prompt`'s
  instructions rendered, every call through `acall_tool` and its hooks, events).

Each turn starts from an empty history; bare and eve turns alternate, so a busy
machine slows both alike. Per configuration the run with the lowest median of
--repeat runs is kept (the machine is shared). Prints a markdown table: the
median turn with and without tool calls, the host's overhead per tool call and per
turn, and the time to the first streamed token (a text-only answer) for both.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from pydantic_ai import Agent as Bare
from pydantic_ai.messages import ModelMessage, PartDeltaEvent, PartStartEvent
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel

from eve_build.consumer.build import build_agent
from eve_build.runtime import load_agent
from eve_build.session.engine import Session, SessionOptions

TOOL = '''from pydantic import BaseModel
from eve_build.sdk import define_tool


class Input(BaseModel):
    text: str


def run(input: Input, ctx: object) -> dict[str, str]:
    return {"text": input.text}


tool = define_tool(description="Echo.", input=Input, execute=run)
'''


def make_model(calls: int) -> FunctionModel:
    async def stream(messages: list[ModelMessage], info: AgentInfo
                     ) -> AsyncIterator[str | DeltaToolCalls]:
        if calls and len(messages) == 1:
            yield {i: DeltaToolCall("echo", f'{{"text": "t{i}"}}', tool_call_id=f"c{i}")
                   for i in range(calls)}
        else:
            for word in ("the ", "answer ", "is ", "here"):
                yield word

    return FunctionModel(stream_function=stream)


def echo(text: str) -> dict[str, str]:
    """Echo."""
    return {"text": text}


async def timed(turn: Callable[[], Awaitable[Any]], turns: int) -> list[float]:
    seconds = []
    for _ in range(turns):
        start = time.perf_counter()
        await turn()
        seconds.append(time.perf_counter() - start)
    return seconds


async def interleaved(bare: Callable[[], Awaitable[Any]], eve: Callable[[], Awaitable[Any]],
                      options: argparse.Namespace) -> tuple[list[list[float]], list[list[float]]]:
    """Both, turn by turn in alternation, so a busy machine slows both alike."""
    bare_runs: list[list[float]] = []
    eve_runs: list[list[float]] = []
    for _ in range(options.repeat):
        bare_runs.append([])
        eve_runs.append([])
        for _ in range(options.turns):
            bare_runs[-1].extend(await timed(bare, 1))
            eve_runs[-1].extend(await timed(eve, 1))
    return bare_runs, eve_runs


async def first_token(run: Callable[[Callable[[], None]], Awaitable[Any]], turns: int
                      ) -> list[float]:
    seconds = []
    for _ in range(turns):
        seen: list[float] = []

        def token(seen: list[float] = seen, start: float = time.perf_counter()) -> None:
            if not seen:
                seen.append(time.perf_counter() - start)

        await run(token)
        seconds.append(seen[0])
    return seconds


def best(runs: list[list[float]]) -> float:
    return min(statistics.median(r) for r in runs) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--calls", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "app"
        (root / "agent/tools").mkdir(parents=True)
        (root / "pyproject.toml").write_text('[project]\nname = "bench"\nversion = "0.1.0"\n')
        (root / "agent/instructions.md").write_text("You are a bench agent.\n")
        (root / "agent/tools/echo.py").write_text(TOOL)
        build_agent(root)
        with load_agent(root, local=False) as agent:
            rows = agent._run(measure(agent, root, options))
    load = os.getloadavg()
    print(f"{platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"{datetime.date.today()}, load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"{options.turns} turns x {options.repeat} runs, best median kept\n")
    print("| measure | bare pydantic-ai | eve-build | added |")
    print("|---|---|---|---|")
    for name, bare, eve in rows:
        print(f"| {name} | {bare:.3f} ms | {eve:.3f} ms | {eve - bare:.3f} ms |")
    (_, bare0, eve0), (_, bare_n, eve_n) = rows[0], rows[1]
    per_call = ((eve_n - bare_n) - (eve0 - bare0)) / options.calls
    print(f"\nper tool call: {per_call:.3f} ms; per turn with {options.calls} calls: "
          f"{eve_n - bare_n:.3f} ms ({(eve_n - bare_n) / eve_n:.0%} of the eve turn)")


async def measure(agent: Any, root: Path, options: argparse.Namespace
                  ) -> list[tuple[str, float, float]]:
    rows = []
    for calls in (0, options.calls):
        model = make_model(calls)
        bare = Bare(model, tools=[echo], instructions="You are a bench agent.")
        session = Session(agent, root, "bench", SessionOptions(model="fn", instance=model))

        async def nothing(_ctx: Any, events: Any) -> None:
            async for _event in events:
                pass

        async def bare_turn(bare: Bare[None, str] = bare) -> Any:
            return await bare.run("go", event_stream_handler=nothing)

        async def eve_turn(session: Session = session) -> Any:
            session.history, session.pending = [], []
            return await session.asend("go")

        bare_runs, eve_runs = await interleaved(bare_turn, eve_turn, options)
        rows.append((f"turn, {calls} tool calls", best(bare_runs), best(eve_runs)))
    model = make_model(0)
    bare = Bare(model, instructions="You are a bench agent.")
    session = Session(agent, root, "bench", SessionOptions(model="fn", instance=model))

    async def bare_first(token: Callable[[], None]) -> Any:
        async def handler(_ctx: Any, events: Any) -> None:
            async for event in events:
                if isinstance(event, PartStartEvent | PartDeltaEvent):
                    token()
        return await bare.run("go", event_stream_handler=handler)

    async def eve_first(token: Callable[[], None]) -> Any:
        session.history, session.pending = [], []
        return await session.asend("go", listener=lambda e: token() if e.kind == "token"
                                   else None)

    bare_ttft: list[list[float]] = []
    eve_ttft: list[list[float]] = []
    for _ in range(options.repeat):
        bare_ttft.append([])
        eve_ttft.append([])
        for _ in range(options.turns):
            bare_ttft[-1].extend(await first_token(bare_first, 1))
            eve_ttft[-1].extend(await first_token(eve_first, 1))
    rows.append(("time to first token", best(bare_ttft), best(eve_ttft)))
    return rows


if __name__ == "__main__":
    main()
