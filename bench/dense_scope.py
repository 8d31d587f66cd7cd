"""The agent loop in one ``Scope`` node of many short records (``bench.agent_loop --dense``).

What an agent's log of one project looks like: ``n`` twelve-word episodic records in one scope
(one ``Scope`` node), every word drawn from a small shared vocabulary (:data:`VOCABULARY`, 200
words), so each term's posting holds a large share of the scope. Measured as in
:func:`bench.agent_loop.loop_figures`: ``retrieve`` with no write in between, one ``write`` of
such a record, and ``retrieve`` right after the same client's ``write``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from graphmem import DecisionState, Memory, Principal

#: 200 words: 40 stems in 5 forms, all the records' words.
VOCABULARY = tuple(f"{stem}{suffix}" for stem in (
    "deploy", "build", "cache", "retry", "timeout", "flaky", "test", "runner", "queue", "worker",
    "shard", "index", "replica", "backup", "token", "rotation", "invoice", "refund", "ticket",
    "alert", "latency", "schema", "migrate", "branch", "merge", "review", "patch", "release",
    "config", "secret", "metric", "trace", "log", "disk", "memory", "socket", "proxy", "lock",
    "commit", "rollback") for suffix in ("", "s", "ed", "ing", "er"))

WORDS_PER_RECORD = 12


def dense_sentence(rng: random.Random) -> str:
    """Twelve words of :data:`VOCABULARY`, drawn with ``rng``."""
    return " ".join(rng.choice(VOCABULARY) for _ in range(WORDS_PER_RECORD))


def dense_record(rid: str, scope: dict[str, str], rng: random.Random, at: datetime
                 ) -> dict[str, Any]:
    """An episodic record of :func:`dense_sentence` in ``scope``, created at ``at``."""
    return {"id": rid, "kind": "episodic", "content": dense_sentence(rng),
            "created_at": at.isoformat(), "scope": scope, "authority": "verified_outcome",
            "provenance": {"source": "bench"}}


def load_dense(memory: Memory, scope: dict[str, str], n: int, now: datetime,
               seed: int = 7, batch: int = 5000) -> float:
    """Import ``n`` dense records into ``scope`` (created over the day before ``now``);
    returns the seconds it took."""
    rng = random.Random(seed)
    tag = scope["project"]
    start = time.perf_counter()

    def batches() -> Any:
        for lo in range(0, n, batch):
            yield [dense_record(f"{tag}-{i}", scope, rng,
                                now - timedelta(days=1) + timedelta(seconds=i * 86_400 / n))
                   for i in range(lo, min(n, lo + batch))]

    for _ in memory.put_stream(batches()):
        pass
    return time.perf_counter() - start


def dense_state(scope: dict[str, str], rng: random.Random) -> DecisionState:
    """A decision state of that scope, its goal and observation dense sentences."""
    words = dense_sentence(rng).split()
    return DecisionState(memory_scope=dict(scope), goal=" ".join(words[:5]),
                         last_observation=" ".join(words[5:]), needs_prior_context=True)


def dense_figures(a: Memory, scope: dict[str, str], principal: Principal, now: datetime,
                  reps: int, warmup: int, loop_reps: int,
                  summary: Callable[[list[float]], dict[str, float]]) -> dict[str, Any]:
    """``retrieve_only`` (``reps`` reads with no write between, after ``warmup``), then
    ``loop_reps`` rounds of a ``write`` of a dense record and a ``retrieve`` right after it
    (``write``, ``retrieve_after_own_write``), with ms summaries by ``summary``."""
    rng = random.Random(11)
    tag = scope["project"]

    def read() -> float:
        t0 = time.perf_counter()
        a.retrieve(dense_state(scope, rng), principal=principal, now=now)
        return (time.perf_counter() - t0) * 1000

    for _ in range(warmup):
        read()
    out: dict[str, Any] = {"retrieve_only": summary([read() for _ in range(reps)])}
    writes: list[float] = []
    reads: list[float] = []
    for i in range(warmup + loop_reps):
        t0 = time.perf_counter()
        a.write(dense_record(f"{tag}-loop-{i}", scope, rng, now), now=now)
        written = (time.perf_counter() - t0) * 1000
        after = read()
        if i >= warmup:
            writes.append(written)
            reads.append(after)
    out["write"] = summary(writes)
    out["retrieve_after_own_write"] = summary(reads)
    return out
