"""Every public call of Memory (and of its ``intentions``), found by introspection, refuses an
argument of the wrong type with a ValidationError naming it, before it sends anything
(docs/guide/agent-builders.md#errors-times-and-bounds): a call added later is checked here
too. No database: the client's driver fails the test if a call reaches it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pytest

from graphmem import Authority, Memory, MemoryConflict, MemoryRecord, Principal
from graphmem.db import connect
from graphmem.db.store import Neo4jStore
from graphmem.errors import ValidationError
from graphmem.intentions import Intentions
from tests.support.arguments import (
    NoDriver,
    check_every_wrong_argument,
    public_calls,
)
from tests.support.writers import rec

MEMORY = public_calls(Memory)
INTENTIONS = public_calls(Intentions)


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> Memory:
    def no_server(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("connect opened a store before its check")

    monkeypatch.setattr(connect, "open_store", no_server)
    return Memory(Neo4jStore(NoDriver()))  # type: ignore[arg-type]


def test_the_calls_are_found() -> None:
    assert len(MEMORY) >= 30 and {"get", "write", "retrieve", "connect", "confined",
                                  "put_stream", "lineage"} <= set(MEMORY)
    assert {"get", "intend", "due", "fire", "cancel", "process_event"} <= set(INTENTIONS)


@pytest.mark.parametrize("name", sorted(MEMORY))
def test_a_wrong_argument_of_a_memory_call_is_a_validation_error(offline: Memory,
                                                                  name: str) -> None:
    assert check_every_wrong_argument(getattr(offline, name), name) > 0


@pytest.mark.parametrize("name", sorted(INTENTIONS))
def test_a_wrong_argument_of_an_intentions_call_is_a_validation_error(offline: Memory,
                                                                      name: str) -> None:
    assert check_every_wrong_argument(getattr(offline.intentions, name), name) > 0


#: what a security tester passed, each of which escaped as a raw Python or driver error
FOUND: dict[str, Callable[[Memory], object]] = {
    "get a list": lambda m: m.get(["r1"]),  # type: ignore[arg-type]
    "intend a str": lambda m: m.intend("x"),  # type: ignore[arg-type]
    "due a str": lambda m: m.due("x", scope={"tenant": "acme"}),  # type: ignore[arg-type]
    "lineage depth '2'": lambda m: m.lineage("r1", "up", "2"),  # type: ignore[arg-type]
    "retrieve k None": lambda m: m.retrieve({"memory_scope": {"tenant": "acme"}},
                                            k=None),  # type: ignore[arg-type]
    "retrieve ranker 1": lambda m: m.retrieve({"memory_scope": {"tenant": "acme"}},
                                              ranker=1),  # type: ignore[arg-type]
    "confined admin": lambda m: m.confined(Principal(tenants=frozenset({"acme"})),
                                           max_authority="admin"),
    "apply_deletion None": lambda m: m.apply_deletion(None),  # type: ignore[arg-type]
    "resolve None": lambda m: m.resolve(None),  # type: ignore[arg-type]
    "import_jsonl None": lambda m: m.import_jsonl(None),  # type: ignore[arg-type]
    "explain object": lambda m: m.explain(object(), scope={"tenant": "acme"}),  # type: ignore[arg-type]
    "history object": lambda m: m.history(object()),  # type: ignore[arg-type]
    "retract object": lambda m: m.retract(object(), by="a", reason="r"),  # type: ignore[arg-type]
    "fire object": lambda m: m.fire(object(), by="a"),  # type: ignore[arg-type]
    "cancel object": lambda m: m.cancel(object(), by="a", reason="r"),  # type: ignore[arg-type]
    "get_retrieval object": lambda m: m.get_retrieval(object()),  # type: ignore[arg-type]
    "record_use object": lambda m: m.record_use(object(), "act", []),  # type: ignore[arg-type]
    "supersede a str of ids": lambda m: m.supersede("r1", {}, by="a", reason="r"),
    "an unknown keyword": lambda m: m.get(record="r1"),  # type: ignore[call-arg]
}


@pytest.mark.parametrize("name", sorted(FOUND))
def test_what_the_tester_found_is_a_validation_error(offline: Memory, name: str) -> None:
    with pytest.raises(ValidationError):
        FOUND[name](offline)


def test_the_message_names_the_call_and_the_argument_never_its_content(
        offline: Memory) -> None:
    with pytest.raises(ValidationError) as raised:
        offline.get(["a secret note"])  # type: ignore[arg-type]
    assert str(raised.value) == "get: argument 'record_id' must be str, not list"
    with pytest.raises(ValidationError, match="max_authority must be one of"):
        offline.confined(Principal(tenants=frozenset({"acme"})), max_authority="admin")


class _Store:
    """A store stand-in that keeps what the bulk calls were given."""

    limits: Any = None

    def __init__(self) -> None:
        self.given: list[object] = []

    def put_many(self, records: Iterable[dict[str, Any]]) -> list[str]:
        self.given.append(records)
        return [r["id"] for r in records]

    def put_stream(self, batches: Iterable[list[dict[str, Any]]]) -> Iterator[list[str]]:
        self.given.append(batches)
        return ([r["id"] for r in batch] for batch in batches)


def test_an_iterable_reaches_the_call_as_given_and_unread() -> None:
    """The check neither copies nor reads an iterable: a generator reaches the call whole,
    to be read once; so do a dict and a list (the very objects)."""
    store = _Store()
    memory = Memory(store)  # type: ignore[arg-type]
    records = ({"id": f"r{i}"} for i in range(3))
    assert memory.put_many(records) == ["r0", "r1", "r2"]
    assert store.given == [records]
    batches = iter([[{"id": "a"}], [{"id": "b"}]])
    assert list(memory.put_stream(batches)) == [["a"], ["b"]]
    assert store.given[-1] is batches


def test_values_the_hints_take_pass(offline: Memory) -> None:
    """An Authority by its name, any iterable of records: taken as before."""
    view = offline.confined(Principal(tenants=frozenset({"acme"})),
                            max_authority="model_inferred")
    assert view.access.max_authority == Authority.MODEL_INFERRED
    conflict = MemoryConflict("plan", ("a", "b"), ("x", "y"))
    records = (MemoryRecord.model_validate(rec(i, asserts="plan", asserted_value=v,
                                               authority=a))
               for i, v, a in (("a", "x", "verified_outcome"), ("b", "y", "untrusted")))
    resolution = offline.resolve(conflict, records)
    assert (resolution.value, resolution.decided_by) == ("x", "authority")


@pytest.mark.parametrize("records", [[], [{"id": "a"}], ["a"]])
def test_records_that_settle_no_conflict_are_a_validation_error(
        offline: Memory, records: list[Any]) -> None:
    """None of the conflict's records, or items that are no records: a ValidationError,
    where resolving an empty pool raised a bare ValueError."""
    with pytest.raises(ValidationError):
        offline.resolve(MemoryConflict("plan", ("a", "b"), ("x", "y")), records)
