"""Soak under mixed load: many workers, one store, invariants checked live.

``workers`` threads (default 16), each with its own client, run for ``seconds`` (default 300)
over a store seeded with ``records`` records (default 10^4) in one tenant, mixing ``write``,
``retrieve``, ``retract``, ``supersede``, ``process_event`` and ``record_use``; a deletion
thread plans and applies the erasure of one subject every few seconds. Checked while it runs,
by an oracle in Python that only uses the records' own fields and what the workers saw
complete (never the store's own eligibility answer):

* every retrieved record is eligible and active for its caller at its ``now``: tenant and scope
  inside the caller's, sensitivity within the clearance, ``valid_from <= now < expires_at``, not
  retracted, never a quarantined write, not erased, retracted or superseded (by a successor
  nobody disturbed since) by an operation that had completed before the retrieval began;
* no intention fires twice (``process_event`` from every worker races on the same cues);
* no acknowledged write is lost (every acknowledged PERSIST/QUARANTINE is stored at the end);
* every applied deletion verifies; no error other than a documented ``GraphmemError``.

Writes ``bench/results/soak.json`` (operations/s, latency percentiles per operation, error
counts, violations). Run from the repo root::

    python -m bench.soak                     # 5 minutes, 16 workers, 10^4 records
    python -m bench.soak --seconds 30 --records 2000

Neo4j: ``NEO4J_URI`` when set (the benchmark only touches its own tenant, ``soak``, and erases
nothing outside it), else a throwaway :class:`graphmem.db.server.EphemeralServer`.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import random
import statistics
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from graphmem import Memory
from graphmem.client import store_of
from graphmem.db.server import EphemeralServer
from graphmem.db.settings import ConnectionSettings
from graphmem.errors import GraphmemError
from graphmem.models import MemoryRecord, Principal, Sensitivity

TENANT = "soak"
NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
PROJECTS = [f"p{i}" for i in range(8)]
WORDS = ("invoice", "refund", "deploy", "rollback", "ticket", "outage", "schema", "backup",
         "token", "audit", "release", "customer", "latency", "pricing", "trial", "region")
SENS = list(Sensitivity)
RESULTS = Path(__file__).parent / "results" / "soak.json"


@dataclass
class Oracle:
    """What the workers saw complete, with monotonic completion times."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    acked: dict[str, str] = field(default_factory=dict)  # id -> disposition
    quarantined: set[str] = field(default_factory=set)
    hidden_at: dict[str, float] = field(default_factory=dict)  # retracted or erased
    superseded_at: dict[str, tuple[float, str]] = field(default_factory=dict)  # by successor
    disturbed: set[str] = field(default_factory=set)  # successors retracted or erased
    fired: Counter[str] = field(default_factory=Counter)
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: Counter[str] = field(default_factory=Counter)
    violations: list[str] = field(default_factory=list)
    deletions: int = 0
    erased: int = 0

    def violate(self, message: str) -> None:
        with self.lock:
            self.violations.append(message)


def _text(rng: random.Random, n: int = 6) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _seed_record(i: int, rng: random.Random, deletable: int) -> dict[str, Any]:
    user = f"del-{(i // 10) % deletable}" if i % 10 == 0 else f"u{i % 20}"
    scope = {"tenant": TENANT, "project": PROJECTS[i % len(PROJECTS)], "user": user}
    if i % 7 == 0:
        scope = {"tenant": TENANT, "project": PROJECTS[i % len(PROJECTS)]}
    rec: dict[str, Any] = {
        "id": f"s-{i:06d}", "kind": "semantic", "content": f"{_text(rng)} note {i}",
        "created_at": NOW - timedelta(days=60), "scope": scope,
        "sensitivity": SENS[0] if i % 10 else rng.choice(SENS),
    }
    if i % 13 == 0:
        rec["expires_at"] = NOW + timedelta(days=rng.randint(-20, 20))
    if i % 17 == 0:
        rec["valid_from"] = NOW + timedelta(days=rng.randint(-20, 20))
        if "expires_at" in rec:
            rec["expires_at"] = rec["valid_from"] + timedelta(days=rng.randint(1, 20))
    return rec


def seed(memory: Memory, records: int, deletable: int, intentions: int) -> None:
    """Seed the soak tenant: ``records`` records, ``intentions`` pending intentions."""
    rng = random.Random(17)
    for start in range(0, records, 1000):
        memory.put_many([_seed_record(i, rng, deletable)
                         for i in range(start, min(start + 1000, records))])
    for i in range(intentions):
        memory.intend({"id": f"int-{i:05d}", "action": f"follow up {i}", "trigger_kind": "ticket",
                       "trigger_value": f"T{i % (intentions // 3 + 1)}", "created_at": NOW,
                       "scope": {"tenant": TENANT, "project": PROJECTS[i % len(PROJECTS)]}})


def check_retrieved(oracle: Oracle, rec: MemoryRecord, principal: Principal,
                    scope: dict[str, str], now: datetime, began: float) -> None:
    """Independent eligibility check of one retrieved record (see the module docstring)."""
    problems = []
    if rec.tenant not in principal.tenants:
        problems.append("foreign tenant")
    if any(scope.get(k) != v for k, v in rec.scope.items()):
        problems.append("out of scope")
    if rec.sensitivity > principal.clearance:
        problems.append("above clearance")
    if rec.valid_from is not None and rec.valid_from > now:
        problems.append("not yet valid")
    if rec.expires_at is not None and rec.expires_at <= now:
        problems.append("expired")
    if rec.retracted:
        problems.append("retracted flag")
    with oracle.lock:
        if rec.id in oracle.quarantined:
            problems.append("quarantined")
        hidden = oracle.hidden_at.get(rec.id)
        if hidden is not None and hidden < began:
            problems.append("retracted/erased before the retrieval")
        sup = oracle.superseded_at.get(rec.id)
        if sup is not None and sup[0] < began and sup[1] not in oracle.disturbed:
            problems.append(f"superseded by {sup[1]} before the retrieval")
    if problems:
        oracle.violate(f"retrieved {rec.id} at {now.isoformat()}: {', '.join(problems)}")


@contextmanager
def timed(oracle: Oracle, op: str) -> Iterator[None]:
    start = time.perf_counter()
    try:
        yield
    except GraphmemError as exc:
        with oracle.lock:
            oracle.errors[f"{op}:{type(exc).__name__}"] += 1
    except Exception as exc:
        oracle.violate(f"{op}: untyped {type(exc).__module__}.{type(exc).__name__}: "
                       f"{str(exc)[:200]}")
        with oracle.lock:
            oracle.errors[f"{op}:{type(exc).__name__}"] += 1
    else:
        with oracle.lock:
            oracle.latencies[op].append((time.perf_counter() - start) * 1000)


def worker(n: int, settings: ConnectionSettings, oracle: Oracle, deadline: float,
           pools: dict[str, list[str]], intentions: int) -> None:
    rng = random.Random(1000 + n)
    memory = Memory.connect(settings, start_if_needed=False)
    mine: list[str] = []
    last_retrieval: tuple[str, list[str]] | None = None
    i = 0
    try:
        while time.monotonic() < deadline:
            i += 1
            roll = rng.random()
            project = rng.choice(PROJECTS)
            if roll < 0.30:
                rid = f"w{n}-{i:06d}"
                rec = {"id": rid, "kind": "semantic", "created_at": NOW,
                       "content": f"{_text(rng)} worker {n} write {i}",
                       "scope": {"tenant": TENANT, "project": project, "user": f"u{n}"},
                       "authority": rng.choice(["human_instruction", "untrusted",
                                                "model_inferred"])}
                with timed(oracle, "write"):
                    decision = memory.write(rec, by=f"worker-{n}", now=NOW)
                    with oracle.lock:
                        oracle.acked[rid] = decision.disposition.value
                        if decision.disposition.value == "QUARANTINE":
                            oracle.quarantined.add(rid)
                    if decision.disposition.value == "PERSIST":
                        mine.append(rid)
            elif roll < 0.70:
                user = rng.choice([f"u{n}", f"u{rng.randrange(20)}",
                                   rng.choice(pools["subjects"])])
                scope = {"tenant": TENANT, "project": project, "user": user}
                principal = Principal(tenants=frozenset({TENANT}), clearance=rng.choice(SENS))
                now = NOW + timedelta(days=rng.uniform(-25, 25))
                began = time.monotonic()
                with timed(oracle, "retrieve"):
                    got = memory.retrieve({"memory_scope": scope, "goal": _text(rng, 3),
                                           "needs_prior_context": True},
                                          principal=principal, now=now)
                    for m in got.memories:
                        check_retrieved(oracle, m.record, principal, scope, now, began)
                    if got.ids:
                        last_retrieval = (got.trace.retrieval_id, got.ids)
            elif roll < 0.77 and mine:
                rid = mine.pop(rng.randrange(len(mine)))
                with timed(oracle, "retract"):
                    memory.retract(rid, by=f"worker-{n}", reason="soak")
                    with oracle.lock:
                        oracle.hidden_at[rid] = time.monotonic()
                        oracle.disturbed.add(rid)
            elif roll < 0.84:
                with oracle.lock:
                    old = pools["supersede"].pop() if pools["supersede"] else None
                if old is None:
                    continue
                new_id = f"sup{n}-{i:06d}"
                with timed(oracle, "supersede"):
                    source = memory.get(old)
                    successor = {**source.model_dump(), "id": new_id, "supersedes": [old],
                                 "content": f"{source.content} (revised by {n})",
                                 "created_at": source.created_at, "valid_from": None,
                                 "expires_at": None,
                                 "authority": "human_instruction"}
                    memory.supersede([old], successor, by=f"worker-{n}", reason="soak")
                    with oracle.lock:
                        oracle.acked[new_id] = "PERSIST"
                        oracle.superseded_at[old] = (time.monotonic(), new_id)
            elif roll < 0.93:
                event = {"ticket": f"T{rng.randrange(intentions // 3 + 1)}"}
                scope = {"tenant": TENANT, "project": project}
                principal = Principal(tenants=frozenset({TENANT}))
                with timed(oracle, "process_event"):
                    fired = memory.process_event(event, principal=principal, scope=scope,
                                                 by=f"worker-{n}", now=NOW)
                    with oracle.lock:
                        for intention in fired:
                            oracle.fired[intention.id] += 1
                            if oracle.fired[intention.id] > 1:
                                oracle.violations.append(f"intention {intention.id} fired twice")
            elif last_retrieval is not None:
                retrieval_id, ids = last_retrieval
                with timed(oracle, "record_use"):
                    memory.record_use(retrieval_id, f"act-{n}-{i}", ids[:2],
                                      helped=rng.choice([True, False, None]))
                last_retrieval = None
    finally:
        memory.close()


def deleter(settings: ConnectionSettings, oracle: Oracle, deadline: float, every_s: float,
            subjects: list[str]) -> None:
    memory = Memory.connect(settings, start_if_needed=False)
    try:
        while subjects and time.monotonic() + every_s < deadline:
            time.sleep(every_s)
            subject = {"tenant": TENANT, "user": subjects.pop()}
            with timed(oracle, "deletion"):
                plan = memory.plan_deletion(subject=subject, requested_by="soak",
                                            reason="erasure under load")
                report = memory.apply_deletion(plan)
                done = time.monotonic()
                with oracle.lock:
                    oracle.deletions += 1
                    oracle.erased += len(plan.entries)
                    for e in plan.entries:
                        oracle.hidden_at.setdefault(e.id, done)
                        oracle.disturbed.add(e.id)
                if not report.verification.passed:
                    oracle.violate(f"deletion {plan.request_id} did not verify: "
                                   f"{report.verification.problems}")
    finally:
        memory.close()


def _percentiles(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {"n": 0}
    q = statistics.quantiles(values, n=100, method="inclusive") if len(values) > 1 else [
        values[0]] * 99
    return {"n": len(values), "p50_ms": round(q[49], 2), "p95_ms": round(q[94], 2),
            "p99_ms": round(q[98], 2), "max_ms": round(max(values), 2)}


def run_soak(settings: ConnectionSettings, *, seconds: float = 300, workers: int = 16,
             records: int = 10_000, intentions: int = 600, delete_every_s: float = 3.0
             ) -> dict[str, Any]:
    """Seed, run the mixed load for ``seconds``, check the invariants; return the results.

    The soak tenant (``soak``) must not exist yet in the database behind ``settings``.
    Returns a JSON-ready dict: ``operations``, ``ops_per_s``, ``latency`` per operation,
    ``errors`` (typed ones, by operation and type), ``violations`` (must be empty), ...
    """
    deletable = int(seconds / delete_every_s) + 10  # one subject per deletion, and spare
    with Memory.connect(settings, start_if_needed=False) as memory:
        started = time.monotonic()
        seed(memory, records, deletable, intentions)
        seed_s = time.monotonic() - started
    oracle = Oracle()
    pools = {"supersede": [f"s-{i:06d}" for i in range(records)
                           if i % 10 and i % 13 and i % 17],
             "subjects": [f"del-{i}" for i in range(deletable)]}
    random.Random(5).shuffle(pools["supersede"])
    deadline = time.monotonic() + seconds
    threads = [threading.Thread(target=worker, args=(n, settings, oracle, deadline, pools,
                                                     intentions), name=f"soak-{n}")
               for n in range(workers)]
    threads.append(threading.Thread(target=deleter, name="soak-deleter", args=(
        settings, oracle, deadline, delete_every_s, list(pools["subjects"]))))
    began = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - began
    with Memory.connect(settings, start_if_needed=False) as memory:  # nothing acked is lost
        acked = [rid for rid, d in oracle.acked.items() if d != "DISCARD"]
        stored: set[str] = set()
        for start in range(0, len(acked), 2000):
            stored |= set(store_of(memory).get_props(acked[start:start + 2000]))
        lost = sorted(set(acked) - stored)
        if lost:
            oracle.violate(f"{len(lost)} acknowledged writes lost, e.g. {lost[:5]}")
    operations = sum(len(v) for v in oracle.latencies.values()) + sum(oracle.errors.values())
    return {
        "seconds": round(elapsed, 1), "workers": workers, "records_seeded": records,
        "intentions_seeded": intentions, "seed_s": round(seed_s, 1),
        "operations": operations, "ops_per_s": round(operations / elapsed, 1),
        "latency": {op: _percentiles(v) for op, v in sorted(oracle.latencies.items())},
        "errors": dict(sorted(oracle.errors.items())),
        "acknowledged_writes": len(acked), "intentions_fired": len(oracle.fired),
        "deletions_applied": oracle.deletions, "nodes_erased": oracle.erased,
        "violations": oracle.violations,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "load_avg_1m_at_end": round(os.getloadavg()[0], 1)},
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    logging.getLogger("neo4j").setLevel(logging.ERROR)  # the driver's deadlock-retry notices
    env = ConnectionSettings.from_env()
    if env is not None:
        results = run_soak(env, seconds=args.seconds, workers=args.workers,
                           records=args.records)
    else:
        with EphemeralServer(heap="1g", timeout_s=900) as server:
            results = run_soak(server.settings, seconds=args.seconds, workers=args.workers,
                               records=args.records)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in results.items() if k != "latency"}, indent=2))
    return 1 if results["violations"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
