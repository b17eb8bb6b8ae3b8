"""eve tools in your own pydantic-ai Agent, through `load_agent(root).toolset()`.

    eve build --path my-agent
    python docs/examples/pydantic_ai_toolset.py my-agent "Find Ada in the CRM" openai:gpt-4o-mini

Every call goes through the agent's hooks, approvals, budgets and timeouts. A tool that
asks for approval (`always()`, `once()`) ends the run with pydantic-ai's
`DeferredToolRequests`; this example asks on the terminal and resumes the run with the
answers (`DeferredToolResults`). See docs/frameworks.md.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults
from pydantic_ai.models import Model

from eve_build.runtime import load_agent
from eve_build.runtime.prompt import assemble_loaded_prompt

Decide = Callable[[str, dict[str, Any]], bool]


def ask_on_the_terminal(tool: str, arguments: dict[str, Any]) -> bool:
    return input(f"Run {tool} with {arguments}? [y/N] ").strip().lower() in ("y", "yes")


def run(app: Path, prompt: str, model: Model | str, decide: Decide = ask_on_the_terminal
        ) -> str:
    """One run of `prompt` with the eve agent at `app`'s tools and instructions."""
    with load_agent(app) as eve_agent:
        agent = Agent(model, instructions=assemble_loaded_prompt(eve_agent).text,
                      toolsets=[eve_agent.toolset()],
                      output_type=[str, DeferredToolRequests])
        result = agent.run_sync(prompt)
        while isinstance(result.output, DeferredToolRequests):  # approvals to decide
            answers = DeferredToolResults(approvals={
                call.tool_call_id: decide(call.tool_name, call.args_as_dict())
                for call in result.output.approvals})
            result = agent.run_sync(message_history=result.all_messages(),
                                    deferred_tool_results=answers)
        return result.output


if __name__ == "__main__":
    print(run(Path(sys.argv[1]), sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "test"))
