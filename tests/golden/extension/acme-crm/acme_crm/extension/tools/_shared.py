"""Private helpers for the tools: a leading `_` means not a contribution."""

from __future__ import annotations


def normalize_query(text: str) -> str:
    """Collapse whitespace and lower-case a search query."""
    return " ".join(text.split()).lower()
