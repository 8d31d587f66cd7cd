"""AsyncMemory against Memory on the real Neo4j: one scenario, written once, run through both
clients on the same empty store, gives the same write decisions, retrievals and traces,
explanations, histories, confinement refusals and errors; every id-taking call of a confined
client refuses what is out of reach with Memory's error; 20 concurrent calls are correct."""

from __future__ import annotations

import asyncio
import inspect
import socket
from collections.abc import AsyncIterator, Callable, Coroutine
from datetime import timedelta
from functools import partial
from typing import Any, TypeVar, cast

import pytest

from graphmem import (
    AsyncMemory,
    ClientClosedError,
    ConnectionSettings,
    DatabaseUnavailableError,
    GraphmemError,
    Memory,
    Principal,
    RecordNotFoundError,
)
from graphmem.client import store_of
from tests.support.confinement import CALLS, Victim
from tests.support.database import Neo4jUnderTest, wipe
from tests.support.principals import T0, U17, U99

T = TypeVar("T")
ACME = Principal(tenants=frozenset({"acme"}))
SCOPE = {"tenant": "acme", "project": "shop"}


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


async def via(value: Any) -> Any:
    """A call's result, from either client: awaited, or iterated to the end (put_stream)."""
    if inspect.isawaitable(value):
        return await value
    if isinstance(value, AsyncIterator):
        return [item async for item in value]
    if inspect.isgenerator(value):
        return list(value)
    return value


def _rec(rid: str, **over: Any) -> dict[str, Any]:
    return {"id": rid, "kind": "semantic", "content": f"returns are accepted ({rid})",
            "created_at": T0.isoformat(), "scope": SCOPE,
            "provenance": {"source": "handbook"}, "authority": "authoritative_source",
            "asserts": "return_window_days", "asserted_value": "14", **over}


async def outcome(call: Callable[[], Any]) -> Any:
    """What a call gave: its normalised result, or its error's type and message."""
    try:
        return ("ok", await via(call()))
    except GraphmemError as exc:
        return ("error", type(exc).__name__, str(exc))


def _trace(result: Any) -> dict[str, Any]:
    trace = vars(result.trace).copy()
    trace.pop("retrieval_id")
    return {**trace, "ranked": list(trace["ranked"])}  # every (id, score), best first


async def scenario(client: Any) -> list[Any]:
    """The same calls through either client; every result and error, normalised."""
    now = T0 + timedelta(days=3)
    seen: list[Any] = []

    async def step(call: Callable[[], Any], shape: Callable[[Any], Any] = lambda x: x
                   ) -> None:
        got = await outcome(call)
        seen.append(("ok", shape(got[1])) if got[0] == "ok" else got)

    def decision(d: Any) -> Any:
        return (d.disposition.value, d.reason, d.record_id)

    await step(lambda: client.write(_rec("v1"), now=now), decision)
    await step(lambda: client.write(_rec("v1"), now=now), decision)  # identical: DISCARD
    await step(lambda: client.write(_rec("v2", supersedes=["v1"], asserted_value="30",
                                         content="returns within 30 days"), now=now),
               decision)
    await step(lambda: client.write(_rec("rival", asserted_value="60", authority=
                                         "human_instruction", content="returns 60 days"),
                                    now=now), decision)
    await step(lambda: client.write(_rec("guess", authority="model_inferred",
                                         asserts=None, asserted_value=None), now=now),
               decision)
    await step(lambda: client.write({"id": "bad", "kind": "semantic"}, now=now), decision)
    await step(lambda: client.put_many([_rec(f"bulk{i}", asserts=None, asserted_value=None)
                                        for i in range(3)]))
    state = {"memory_scope": SCOPE, "goal": "how many days for returns",
             "needs_prior_context": True}
    await step(lambda: client.retrieve(state, principal=ACME, now=now, budget_chars=900),
               lambda r: (r.ids, r.rendered, r.conflicts, _trace(r)))
    await step(lambda: client.retrieve(state, principal=ACME, now=now, budget_chars=-1))
    await step(lambda: client.candidates(principal=ACME, scope=SCOPE, now=now),
               lambda rs: sorted(r.id for r in rs))
    await step(lambda: client.explain("v1", principal=ACME, scope=SCOPE, now=now))
    await step(lambda: client.explain("v1", principal=U99, scope={"tenant": "globex"},
                                      now=now))
    await step(lambda: client.history("v2"))
    await step(lambda: client.get("v2"))
    await step(lambda: client.get("no-such-record"))
    await step(lambda: client.retract("bulk0", by="ops", reason="wrong", at=now))
    await step(lambda: client.expire("bulk1", at=now + timedelta(days=1)))
    await step(lambda: client.history("bulk0"))
    await step(lambda: client.lineage("v2", "both"), lambda g: sorted(g.edges))
    bound = client.confined(U17)
    await step(lambda: bound.get("v2"))  # a tenant-wide record: within reach
    await step(lambda: bound.retract("v2", by="u", reason="r"))  # but not its to change
    await step(lambda: bound.write({**_rec("planted", asserts=None, asserted_value=None)},
                                   now=now), decision)  # above its ceiling
    await step(lambda: bound.write({**_rec("mine", asserts=None, asserted_value=None),
                                    "authority": "human_instruction"}, now=now), decision)
    await step(lambda: bound.put(_rec("x")))  # imports are the operator's
    await step(lambda: bound.candidates(scope={"tenant": "acme", "user": "u-99"}, now=now))
    plan = await via(client.plan_deletion(roots=["bulk2"], requested_by="ops", reason="r",
                                          request_id="del-same"))
    await step(lambda: client.apply_deletion(plan),
               lambda rep: (rep.request.state, rep.counts, rep.verification.passed))
    await step(lambda: client.intend({"id": "i1", "action": "ask about the refund",
                                      "trigger_kind": "customer", "trigger_value": "c-1",
                                      "scope": SCOPE, "created_at": T0}))
    await step(lambda: client.process_event({"customer": "c-1"}, principal=ACME,
                                            scope=SCOPE, by="ops", now=now),
               lambda fired: [i.id for i in fired])
    await step(lambda: client.intentions.get("i1"), lambda i: (i.id, i.status))
    return seen


def _at_free(value: Any) -> Any:
    """Times the server stamps (a transition's ``at``) left out: everything else must match."""
    if isinstance(value, dict):
        return {k: _at_free(v) for k, v in value.items() if k not in {"at"}}
    if isinstance(value, list | tuple):
        return [_at_free(v) for v in value]
    return value


def test_the_same_scenario_through_both_clients_gives_the_same_results(
        memory: Memory, neo4j_db: Neo4jUnderTest) -> None:
    through_memory = run(scenario(memory))
    wipe(memory)

    async def through_async() -> list[Any]:
        async with await AsyncMemory.connect(neo4j_db.settings,
                                             start_if_needed=False) as client:
            return await scenario(client)

    got = run(through_async())
    assert len(got) == len(through_memory) == 29
    for i, (mine, theirs) in enumerate(zip(got, through_memory, strict=True)):
        assert _at_free(mine) == _at_free(theirs), (i, mine, theirs)
    kinds = [s[0] for s in got]
    assert kinds.count("error") >= 7  # the refusals were exercised, not skipped
    assert got[0][1][0] == "PERSIST" and got[1][1][0] == "DISCARD"
    assert got[3][1][0] == "PERSIST" and got[7][1][2], "the conflict is in the retrieval"


@pytest.fixture()
def victim(memory: Memory) -> Victim:
    """Another user's record, intention, retrieval and deletion request."""
    base = {"kind": "semantic", "content": "someone else's plan", "created_at": T0,
            "authority": "human_instruction", "asserts": "plan"}
    memory.put({**base, "id": "own", "scope": {"tenant": "acme", "user": "u-17"},
                "asserted_value": "a"})
    memory.put({**base, "id": "rec-u99", "scope": {"tenant": "acme", "user": "u-99"},
                "asserted_value": "b"})
    memory.put({**base, "id": "gone-u99", "scope": {"tenant": "acme", "user": "u-99"},
                "asserted_value": "c"})
    memory.intend({"id": "int-u99", "action": "call back", "trigger_kind": "customer",
                   "trigger_value": "c-1", "scope": {"tenant": "acme", "user": "u-99"},
                   "created_at": T0})
    retrieval = memory.retrieve({"memory_scope": {"tenant": "acme"}, "goal": "plan",
                                 "needs_prior_context": True}, principal=U99,
                                now=T0 + timedelta(days=1)).trace.retrieval_id
    plan = memory.plan_deletion(roots=["gone-u99"], requested_by="ops", reason="test")
    return Victim("rec-u99", "int-u99", retrieval, memory.apply_deletion(plan).request.id)


def test_every_id_taking_call_refuses_out_of_reach_as_memory_does(
        memory: Memory, victim: Victim, neo4j_db: Neo4jUnderTest) -> None:
    before = store_of(memory).counts()

    async def refusals() -> dict[str, list[Any]]:
        async with await AsyncMemory.connect(neo4j_db.settings,
                                             start_if_needed=False) as client:
            bound = client.confined(U17)
            return {name: [await outcome(partial(call, cast(Any, bound), memory, victim))
                           for call in calls] for name, calls in CALLS.items()}

    got = run(refusals())
    bound = memory.confined(U17)
    for name, calls in CALLS.items():
        expected = [run(outcome(partial(call, bound, memory, victim))) for call in calls]
        assert got[name] == expected, name
        assert all(o[0] == "error" and o[1] in {"OutOfReachError", "AuthorizationError"}
                   for o in got[name]), (name, got[name])
    assert store_of(memory).counts() == before


def test_twenty_concurrent_retrievals_are_each_right(
        memory: Memory, neo4j_db: Neo4jUnderTest) -> None:
    words = ["refund", "jacket", "delivery", "voucher", "exchange", "courier", "invoice"]
    memory.put_many([{"id": f"r{i}", "kind": "semantic", "created_at": T0,
                      "content": f"{words[i % 7]} {words[(i * 3) % 7]} note {i}",
                      "scope": SCOPE, "authority": "authoritative_source"}
                     for i in range(60)])
    states = [{"memory_scope": SCOPE, "goal": f"{words[i % 7]} {words[(i + 2) % 7]}",
               "needs_prior_context": True} for i in range(20)]
    now = T0 + timedelta(days=1)
    expected = [memory.retrieve(s, principal=ACME, now=now, budget_chars=600)
                for s in states]

    async def together() -> list[Any]:
        async with await AsyncMemory.connect(neo4j_db.settings,
                                             start_if_needed=False) as client:
            return await asyncio.gather(*(client.retrieve(s, principal=ACME, now=now,
                                                          budget_chars=600)
                                          for s in states))

    got = run(together())
    assert [(r.ids, r.rendered) for r in got] == [(r.ids, r.rendered) for r in expected]
    assert len({r.trace.retrieval_id for r in got}) == 20
    logged = [memory.get_retrieval(r.trace.retrieval_id)["retrieval"]["selected_ids"]
              for r in got]
    assert logged == [r.ids for r in expected]


def test_twenty_concurrent_identical_writes_persist_once(
        memory: Memory, neo4j_db: Neo4jUnderTest) -> None:
    async def together() -> list[str]:
        async with await AsyncMemory.connect(neo4j_db.settings,
                                             start_if_needed=False) as client:
            decisions = await asyncio.gather(*(client.write(
                {**_rec(f"same-{i}", asserts=None, asserted_value=None),
                 "content": "one fact, written by twenty agents at once"})
                for i in range(20)))
            return [d.disposition.value for d in decisions]

    dispositions = run(together())
    assert dispositions.count("PERSIST") == 1
    assert dispositions.count("DISCARD") == 19


def test_a_closed_client_and_its_views_refuse_every_call(neo4j_db: Neo4jUnderTest) -> None:
    async def closed() -> list[Any]:
        client = await AsyncMemory.connect(neo4j_db.settings, start_if_needed=False)
        view = client.confined(U17)
        await view.close()  # a view closes nothing
        assert (await outcome(lambda: client.get("x")))[1] == "RecordNotFoundError"
        await client.close()
        await client.close()  # twice is harmless
        return [await outcome(lambda: client.get("x")),
                await outcome(lambda: view.retrieve({"memory_scope": SCOPE, "goal": "g",
                                                     "needs_prior_context": True})),
                await outcome(lambda: client.put_stream([[_rec("late")]]))]

    for got in run(closed()):
        assert got[:2] == ("error", "ClientClosedError")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_no_server_is_a_database_unavailable_error() -> None:
    settings = ConnectionSettings(uri=f"bolt://127.0.0.1:{_free_port()}", user="neo4j",
                                  password="x", retry_time_s=1.0)
    with pytest.raises(DatabaseUnavailableError):
        run(AsyncMemory.connect(settings, start_if_needed=False))


def test_errors_are_graphmem_errors_only(memory: Memory, neo4j_db: Neo4jUnderTest) -> None:
    """A bad argument of each kind leaves as Memory's typed error, never a raw one."""
    async def bad() -> list[Any]:
        async with await AsyncMemory.connect(neo4j_db.settings,
                                             start_if_needed=False) as client:
            return [await outcome(call) for call in (
                lambda: client.get("\udcff"),
                lambda: client.retrieve({"goal": 3}),
                lambda: client.candidates(principal=ACME, scope={"tenant": "globex"}),
                lambda: client.write(_rec("naive", created_at="2026-01-01T00:00:00")),
                lambda: client.import_jsonl("/nonexistent/records.jsonl"),
                lambda: client.lineage("no-such", cast(Any, "sideways")),
            )]

    got = run(bad())
    expected = [run(outcome(call)) for call in (
        lambda: memory.get("\udcff"), lambda: memory.retrieve({"goal": 3}),
        lambda: memory.candidates(principal=ACME, scope={"tenant": "globex"}),
        lambda: memory.write(_rec("naive", created_at="2026-01-01T00:00:00")),
        lambda: memory.import_jsonl("/nonexistent/records.jsonl"),
        lambda: memory.lineage("no-such", cast(Any, "sideways")))]
    assert got == expected
    assert all(g[0] == "error" for g in got), got
    with pytest.raises(RecordNotFoundError):
        memory.get("naive")  # nothing written


def test_close_in_one_loop_then_a_new_client_in_another(neo4j_db: Neo4jUnderTest) -> None:
    """Each asyncio.run has its own client and driver: nothing carries over between loops."""
    async def once() -> str:
        async with await AsyncMemory.connect(neo4j_db.settings,
                                             start_if_needed=False) as client:
            return str((await outcome(lambda: client.get("none")))[1])

    assert run(once()) == run(once()) == "RecordNotFoundError"


def test_a_client_used_outside_its_running_loop_is_closed(neo4j_db: Neo4jUnderTest) -> None:
    """A client belongs to the loop that connected it: awaited on another loop while its own
    does not run, a call raises ClientClosedError; on its own loop it works again."""
    own = asyncio.new_event_loop()
    try:
        client = own.run_until_complete(
            AsyncMemory.connect(neo4j_db.settings, start_if_needed=False))
        try:
            with pytest.raises(ClientClosedError):
                run(client.get("x"))
            with pytest.raises(RecordNotFoundError):
                own.run_until_complete(client.get("x"))
        finally:
            own.run_until_complete(client.close())
    finally:
        own.close()
