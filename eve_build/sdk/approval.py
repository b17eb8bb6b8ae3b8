"""Approval policies for tools: `always()`, `once()`, `never()`.

`always` asks the approver before every call, `once` asks on the first call of a
session and remembers the answer, `never` runs without asking (the default).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Policy = Literal["always", "once", "never"]


@dataclass(frozen=True)
class Approval:
    policy: Policy


def always() -> Approval:
    return Approval("always")


def once() -> Approval:
    return Approval("once")


def never() -> Approval:
    return Approval("never")


__all__ = ["Approval", "always", "never", "once"]
