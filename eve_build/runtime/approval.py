"""Approval of tool calls: `always` asks every time, `once` once per session.

The host asks an approver, a callable the embedding application supplies
(`eve call --approve` supplies one that says yes). Without an approver, a call
that needs approval is refused with a reason saying so. Where a person can answer
(`eve chat`, `eve call` on a terminal), the approver is a yes/no question asked the way
`ctx.ask` asks (`asking_approver`): one path for every question to a person.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from eve_build.sdk.definitions import Tool
from eve_build.sdk.interaction import Ask, Cancelled, Declined, Question

APPROVE_FIELD = "approve"
APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object", "title": "Approval",
    "properties": {APPROVE_FIELD: {"type": "boolean", "title": "Approve",
                                   "description": "yes to let the call run"}},
    "required": [APPROVE_FIELD]}
"""An approval as a question: one boolean (a terminal shows it as `[y/N]`)."""


@dataclass(frozen=True)
class ApprovalRequest:
    """What an approver is asked to decide."""

    tool: str  # as the agent sees it: "crm__create_contact"
    arguments: dict[str, Any]
    policy: str  # "always" | "once"
    identity: str
    mount: str | None


Approver = Callable[[ApprovalRequest], bool | Awaitable[bool]]


def derive_approval_key(path: str, name: str) -> str:
    """How the session names a tool for `once`: its name, after the subagent's path."""
    return f"{path}/{name}" if path else name


@dataclass
class ApprovalSession:
    """The answers `once` remembers for the rest of the session, by tool key."""

    remembered: dict[str, bool] = field(default_factory=dict)

    async def refuse(self, tool: Tool, request: ApprovalRequest, approver: Approver | None,
                     *, key: str) -> str | None:
        """None when the call may run, else the reason it is refused.

        `key` names the tool in the session (its name, prefixed by the subagent path
        for a subagent's tool), which is what `once` remembers.
        """
        policy = tool.approval.policy if tool.approval is not None else "never"
        if policy == "never":
            return None
        if policy == "once" and key in self.remembered:
            approved = self.remembered[key]
            return None if approved else "not approved earlier in this session (approval: once)"
        if approver is None:
            return f"it needs approval ({policy}) and no approver was given"
        try:
            answer = approver(request)
            if inspect.isawaitable(answer):
                answer = await answer
        except Exception as exc:  # the approver is the host's callable
            return f"the approver raised {type(exc).__name__}: {exc}"
        approved = bool(answer)
        if policy == "once":
            self.remembered[key] = approved
        return None if approved else "not approved"

    def asks(self, tool: Tool, *, key: str) -> bool:
        """Whether a call of `tool` would ask the approver now (`once` asks only until it
        has an answer)."""
        policy = tool.approval.policy if tool.approval is not None else "never"
        return policy == "always" or (policy == "once" and key not in self.remembered)

    def snapshot(self) -> dict[str, bool]:
        return dict(sorted(self.remembered.items()))

    def restore(self, remembered: Mapping[str, Any]) -> None:
        self.remembered = {str(k): bool(v) for k, v in remembered.items()}


def approval_question(request: ApprovalRequest) -> Question:
    import json

    return Question(f"approve `{request.tool}` {json.dumps(request.arguments)} "
                    f"({request.policy})?", APPROVAL_SCHEMA, tool=request.tool)


def asking_approver(ask: Ask) -> Approver:
    """An approver that asks the person yes or no; declined or cancelled is no."""
    async def approve(request: ApprovalRequest) -> bool:
        try:
            answer = await ask(approval_question(request))
        except (Declined, Cancelled):
            return False
        return answer.get(APPROVE_FIELD) is True

    return approve
