"""What the rendered context says about conflicts (docs/spec/read-path.md, steps 7-8).

The model reads the rendered text, not ``Retrieval.conflicts``: two memories that disagree
shown side by side, without a word, read as two facts. So each conflict group shown is
followed by a note naming the key and what each side says, and a group left out over the
budget leaves a note that an unresolved conflict on that key was left out (both counted in
the budget: :func:`graphmem.read.steps.fit_context`). Pure text, no database.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["conflict_note", "omitted_note"]


def conflict_note(key: str, sides: Sequence[tuple[str, str]]) -> str:
    """The note shown after a conflict group: ``Conflict on `key`: m1 says 500, m2 says
    1000 (unresolved: ...)``.

    Args:
        key: the ``asserts`` key.
        sides: ``(record id, asserted value)`` of each side shown, in the order shown.
    """
    said = ", ".join(f"{rid} says {value}" for rid, value in sides)
    return (f"Conflict on `{key}`: {said} (unresolved: these memories disagree; "
            "do not treat one as settled)")


def omitted_note(key: str) -> str:
    """The note left when a conflict group on ``key`` did not fit the budget."""
    return (f"Unresolved conflict on `{key}` left out: its memories did not fit the "
            "context budget")
