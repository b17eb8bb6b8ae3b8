"""The agent's own options.

The model is a pydantic-ai model name, `provider:model`. `eve run` and `eve chat`
take `--model` (or `--model test`, offline); the `EVE_MODEL` environment variable
wins over the line below. Provider keys come from the environment (see .env.example).
"""

from __future__ import annotations

from eve_build.sdk import define_agent

agent = define_agent(
    description="demo: an eve agent.",
    # model="openai:gpt-4o",  # or set EVE_MODEL, or pass --model to eve run / eve chat
)
