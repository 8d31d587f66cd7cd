"""The mapping of a framework's caller onto graphmem (no database): scope, confined principal,
who wrote, stable ids, and typed errors for what cannot be mapped."""

from __future__ import annotations

import pytest

from graphmem import Principal, Sensitivity, ValidationError
from graphmem.integrations.identity import AgentIdentity, stable_id, user_of


def test_the_user_and_app_are_the_confinement_the_session_and_agent_are_provenance() -> None:
    who = AgentIdentity(tenant="acme", user="u-17", app="travel", agent="concierge",
                        session="s-1", framework="adk")
    assert who.scope == {"app": "travel", "tenant": "acme", "user": "u-17"}
    assert who.principal(Sensitivity.CONFIDENTIAL) == Principal(
        tenants=frozenset({"acme"}), clearance=Sensitivity.CONFIDENTIAL,
        scope={"tenant": "acme", "user": "u-17", "app": "travel"})
    assert who.provenance == {"source": "adk", "agent": "concierge", "session": "s-1"}
    assert who.by == "adk:concierge session s-1"
    bare = AgentIdentity(tenant="acme", user="u-17")
    assert bare.scope == {"tenant": "acme", "user": "u-17"}
    assert "session" not in bare.provenance


def test_two_users_are_confined_apart() -> None:
    u17 = AgentIdentity(tenant="acme", user="u-17").principal()
    u99 = AgentIdentity(tenant="acme", user="u-99").principal()
    theirs = AgentIdentity(tenant="acme", user="u-99").scope
    assert not u17.reaches("acme", Sensitivity.NORMAL, theirs)
    assert u99.may_change("acme", Sensitivity.NORMAL, theirs)
    assert u17.reaches("acme", Sensitivity.NORMAL, {"tenant": "acme"})  # tenant-wide


@pytest.mark.parametrize("field", ["tenant", "user", "app", "agent", "session"])
@pytest.mark.parametrize("value", ["", "   ", 17, None])
def test_an_unmappable_caller_is_a_validation_error(field: str, value: object) -> None:
    fields: dict[str, object] = {"tenant": "acme", "user": "u-17", field: value}
    if value is None and field in ("app", "session"):
        AgentIdentity(**fields)  # type: ignore[arg-type]  # optional: None is fine
        return
    with pytest.raises(ValidationError):
        AgentIdentity(**fields)  # type: ignore[arg-type]


def test_a_scope_graphmem_refuses_is_a_validation_error() -> None:
    with pytest.raises(ValidationError):
        AgentIdentity(tenant="acme", user="u\ud800").principal()  # a lone surrogate
    with pytest.raises(ValidationError):
        AgentIdentity(tenant="acme", user="u" * 5000).principal()  # over the scope's bound


def test_stable_ids_are_stable_and_separate_their_parts() -> None:
    assert stable_id("adk", "a", "b") == stable_id("adk", "a", "b")
    assert stable_id("adk", "ab", "") != stable_id("adk", "a", "b")
    assert stable_id("adk", "a") != stable_id("strands", "a")
    assert stable_id("adk", "\ud800").startswith("adk-")  # never a UnicodeEncodeError


def test_the_users_function_fails_as_a_validation_error() -> None:
    assert user_of(lambda ctx: ctx["user"], {"user": "u-17"}) == "u-17"
    for find in (lambda ctx: ctx["missing"], lambda ctx: "", lambda ctx: 17):
        with pytest.raises(ValidationError):
            user_of(find, {})


def test_no_user_can_choose_a_key_that_gives_another_users_record_id() -> None:
    """The parts were joined with U+001F: user ``u`` writing key ``z\\x1fk`` took the id of
    user ``u\\x1fz``'s key ``k`` (ids are unique in the whole store, so the other user's write
    was refused, and the refusal told ``u`` that the key existed). Ids of parts without U+001F
    are the ones graphmem always gave, so a session written before is still not stored
    twice."""
    assert stable_id("adk", "acme", "app", "u", "z\x1fk") \
        != stable_id("adk", "acme", "app", "u\x1fz", "k")
    assert stable_id("adk", "a\x1f", "b") != stable_id("adk", "a", "\x1fb")
    assert stable_id("adk", "a\x1fb") != stable_id("adk", "a", "b")
    assert stable_id("adk", "a\x1fb") == stable_id("adk", "a\x1fb")
    # unchanged for ordinary parts (the digest of the joined parts, as before)
    import hashlib

    old = hashlib.sha256(b"acme\x1fapp\x1fu-17\x1fevent:e-1").hexdigest()[:32]
    assert stable_id("adk", "acme", "app", "u-17", "event:e-1") == f"adk-{old}"
