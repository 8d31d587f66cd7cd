"""``by`` and ``reason`` of every lifecycle call are text (a breaker found ``write``
took any ``by``; the other calls were left): a non-string is a ValidationError and changes
nothing, where the driver stored it as given or failed to pack it with a bare ValueError."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from graphmem.client import Memory, store_of
from graphmem.errors import ValidationError
from tests.support.writers import T0, rec

BAD: list[Any] = [object(), 12, None, b"bytes"]


def calls(memory: Memory) -> dict[str, Callable[[Any, Any], object]]:
    """Each call that takes ``by`` and ``reason``, on stored records that let it succeed."""
    return {
        "retract": lambda by, reason: memory.retract("r1", by=by, reason=reason, at=T0),
        "expire": lambda by, reason: memory.expire("r1", at=T0 + timedelta(days=1), by=by,
                                                   reason=reason),
        "supersede": lambda by, reason: memory.supersede(
            ["r1"], rec("r2", content="a newer observation of the pipeline"), by=by,
            reason=reason),
        "consolidate": lambda by, reason: memory.consolidate(
            ["r1", "r1b"], into=rec("r3", content="a summary of the pipeline"), by=by,
            reason=reason),
    }


@pytest.mark.parametrize("name", ["retract", "expire", "supersede", "consolidate"])
@pytest.mark.parametrize("field", ["by", "reason"])
def test_a_lifecycle_call_with_no_text_is_a_validation_error_and_changes_nothing(
        memory: Memory, name: str, field: str) -> None:
    memory.write(rec("r1"), now=T0)
    memory.write(rec("r1b", content="the same observation of the pipeline again"), now=T0)
    call = calls(memory)[name]
    before = store_of(memory).counts(), memory.history("r1")
    for bad in BAD:
        args = {"by": "reviewer", "reason": "checked", field: bad}
        with pytest.raises(ValidationError, match=field):
            call(args["by"], args["reason"])
        assert (store_of(memory).counts(), memory.history("r1")) == before, (name, field, bad)
    call("reviewer", "checked")  # the same call with text works, and logs a transition
    assert len(memory.history("r1")) > len(before[1])
