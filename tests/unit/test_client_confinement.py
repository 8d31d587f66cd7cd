"""The table of calls the confinement tests make (tests/support/confinement.py) covers
``Memory``: a public method added later that takes an id fails
:func:`test_every_id_taking_method_is_in_the_table` until it is listed."""

from __future__ import annotations

import inspect
from typing import Any

from graphmem import (
    Memory,
)
from tests.support.confinement import ANSWERS, CALLS

#: public members that name no id, each with what confines it instead
NO_ID: dict[str, str] = {
    "connect": "classmethod: makes a client", "confined": "binds a principal",
    "close": "ends the client", "candidates": "query scope confined (test below)",
    "retrieve": "query scope confined (test below)", "due": "query scope confined",
    "process_event": "query scope confined; fires only its own", "intend": "scope confined",
    "store": "the operator's store",
    "policy": "settings", "access": "the binding itself",
}

_ID_PARAM = ("id", "ids", "roots", "plan", "conflict", "proposal", "record", "into",
             "procedure")


def _public() -> dict[str, Any]:
    return {n: getattr(Memory, n, None) for n in dir(Memory) if not n.startswith("_")}


def test_every_id_taking_method_is_in_the_table() -> None:
    names = set(_public()) | {"store", "policy", "access"}
    unlisted = names - set(CALLS) - set(ANSWERS) - set(NO_ID)
    assert not unlisted, f"list these Memory members in CALLS or NO_ID: {sorted(unlisted)}"
    for name, member in _public().items():
        if callable(member) and name not in ("connect",):
            params = inspect.signature(member).parameters
            if any(p.endswith(_ID_PARAM) for p in params):
                assert name in CALLS or name in ANSWERS, f"{name} takes an id: list it"


# -- deletion across the confinement ------------------------------------------------------


