"""The one scope rule (graphmem.fields.check_scope) over hostile input: any text of any script,
control characters included, is a key or a value; everything else is a ValidationError, and
only that, whatever the caller's bound or name for the scope."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.db.codec import coerce_record
from graphmem.errors import ValidationError
from graphmem.fields import MAX_SCOPE_BYTES, check_scope, scope_problem
from graphmem.limits import InputLimits
from graphmem.models import Principal
from tests.support.sizes import size

#: Text of every script and category: letters of other scripts, controls, format characters,
#: lone surrogates (no UTF-8 form).
ANY_TEXT = st.text(st.characters(codec=None), max_size=40)
#: Values a caller may hand in place of a string.
NOT_STR = st.one_of(st.none(), st.integers(), st.floats(allow_nan=False), st.booleans(),
                    st.binary(max_size=5), st.lists(st.text(max_size=3), max_size=2),
                    st.dictionaries(st.text(max_size=3), st.text(max_size=3), max_size=2))


def _has_surrogate(text: str) -> bool:
    return any(0xD800 <= ord(c) <= 0xDFFF for c in text)


def _expected(scope: dict[Any, Any], tenant: bool, max_bytes: int) -> str | None:
    """What the rule says, written out plainly."""
    if not all(isinstance(k, str) and k and isinstance(v, str) and v for k, v in scope.items()):
        return "non-empty strings"
    if any(_has_surrogate(k) or _has_surrogate(v) for k, v in scope.items()):
        return "lone surrogate"
    if tenant and "tenant" not in scope:
        return "must contain 'tenant'"
    items = sorted(scope.items())
    key = json.dumps(items, ensure_ascii=False, separators=(",", ":"))
    if len(key.encode("utf-8", "surrogatepass")) > max_bytes:
        return "bytes as its key"
    return None


@settings(max_examples=size(75, 150), deadline=None)
@given(scope=st.dictionaries(st.one_of(ANY_TEXT, NOT_STR.filter(lambda v: v is None or isinstance(
           v, int | float | bool | bytes))), st.one_of(ANY_TEXT, NOT_STR), max_size=6),
       tenant_value=st.one_of(st.none(), ANY_TEXT),
       max_bytes=st.sampled_from([16, 64, 300, MAX_SCOPE_BYTES]))
def test_the_rule_over_hostile_scopes(scope: dict[Any, Any], tenant_value: str | None,
                                      max_bytes: int) -> None:
    if tenant_value is not None:
        scope = {**scope, "tenant": tenant_value}
    for tenant in (True, False):
        expected = _expected(scope, tenant, max_bytes)
        problem = scope_problem(scope, what="the query scope", tenant=tenant,
                                max_bytes=max_bytes)
        if expected is None:
            assert problem is None
            checked = check_scope(scope, tenant=tenant, max_bytes=max_bytes)
            assert checked == dict(sorted(scope.items())) and list(checked) == sorted(scope)
            continue
        assert problem is not None and expected in problem, (expected, problem)
        assert problem.startswith("the query scope ")
        with pytest.raises(ValidationError) as raised:
            check_scope(scope, what="the query scope", tenant=tenant, max_bytes=max_bytes)
        assert str(raised.value) == problem
        # the lookup bound says the same, naming its setting
        with pytest.raises(ValidationError) as bounded:
            InputLimits(scope_bytes=max(max_bytes, 16)).check_scope(
                "the query scope", scope, tenant=tenant)
        assert str(bounded.value).startswith(problem.split(" is ")[0])


@settings(max_examples=size(30, 60), deadline=None)
@given(values=st.lists(st.text(st.characters(codec="utf-8"), min_size=1, max_size=30),
                       min_size=1, max_size=5))
def test_any_script_and_control_characters_are_keys_and_values(values: list[str]) -> None:
    scope = {"tenant": values[0], **{f"k{i}\x00\u202e{v}": v for i, v in enumerate(values)}}
    assert check_scope(scope) == dict(sorted(scope.items()))
    record = coerce_record({"id": "r-1", "kind": "semantic", "content": "x",
                            "created_at": "2026-01-01T00:00:00+00:00", "scope": scope})
    assert record.scope == dict(sorted(scope.items()))
    assert Principal(tenants=frozenset({values[0]}), scope=scope).scope == record.scope


@pytest.mark.parametrize("scope", [
    "tenant=acme", ["tenant", "acme"], None, 7, {"tenant": ""}, {"": "x", "tenant": "a"},
    {"tenant": 1}, {1: "x", "tenant": "a"}, {"tenant": None}, {"tenant": b"acme"},
    {"tenant": "a\ud800"}, {"tenant\udcff": "a"}, {"user": "u-17"},
    {"tenant": "a", "user": "u" * MAX_SCOPE_BYTES}, {"tenant": "é" * (MAX_SCOPE_BYTES // 2)},
])
def test_every_holder_of_a_scope_refuses_the_same_scopes(scope: Any) -> None:
    """A record's scope, a query scope, a deletion subject: ValidationError, and the same
    reason. (A principal's confinement needs no tenant; a lookup names its bound.)"""
    problem = scope_problem(scope)
    assert problem is not None
    reason = problem.removeprefix("the scope ")
    with pytest.raises(ValidationError, match="invalid record") as record:
        coerce_record({"id": "r-1", "kind": "semantic", "content": "x",
                       "created_at": "2026-01-01T00:00:00+00:00", "scope": scope})
    if isinstance(scope, dict) and all(isinstance(k, str) for k in scope) and all(
            isinstance(v, str) for v in scope.values()):
        assert reason.split(" (")[0] in str(record.value), (reason, str(record.value))
    for what in ("the query scope", "the deletion subject"):
        with pytest.raises(ValidationError) as looked_up:
            InputLimits().check_scope(what, scope, tenant=True)
        assert str(looked_up.value).startswith(f"{what} {reason.split(' is ')[0]}")
