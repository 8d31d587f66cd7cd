"""What the local Neo4j keeps on disk after an erasure, and what leaving nothing costs.

The experiment behind ``docs/erasure.md`` (docs/spec/deletion.md). On one throwaway server
(:class:`graphmem.db.server.EphemeralServer`, run by graphmem's launcher), each round writes a
fresh marker term (two made-up words, unique to the round) into a subject's records (content,
provenance, metadata), another user's record, an intention (cue and action) and a logged
retrieval's query, erases it through graphmem's deletion (a subject plan with the term to
redact, then apply), and greps every file under the server's home for the term: as UTF-8,
UTF-16 (both byte orders), lower and upper case. Rounds alternate between an apply without
the purge of the server's files (``settle_disk=False``: what Neo4j keeps by itself) and the
normal apply (which purges: :func:`graphmem.deletion.disk.settle`), the order reversed every
round, so both see the same machine (after one unmeasured erasure that plans every query).
Last, the server is stopped (a shutdown checkpoints
every page) and all terms are grepped again.

Prints a table and writes ``bench/results/erasure-residue-<date>.json``. Run from the repo
root::

    python -m bench.erasure_residue            # 3 rounds of each, about a minute
    python -m bench.erasure_residue --rounds 5 --records 50
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import shutil
import statistics
import string
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from graphmem import DecisionState, Principal, Sensitivity
from graphmem.client import Memory, store_of
from graphmem.db.server import EphemeralServer
from graphmem.deletion import apply_deletion

RESULTS = Path(__file__).resolve().parent / "results"
ENCODINGS = ("utf-8", "utf-16-le", "utf-16-be")
console = Console()


def needles(term: str) -> dict[str, bytes]:
    """The byte strings a copy of ``term`` may be stored as, by a label."""
    forms = {"as written": term, "lower": term.lower(), "upper": term.upper()}
    return {f"{enc} {label}": text.encode(enc)
            for enc in ENCODINGS for label, text in forms.items()}


def counts(data: bytes, wanted: dict[str, bytes]) -> dict[str, int]:
    """How often each needle of ``wanted`` (by its label) occurs in ``data``, those that do:
    ``data.count(needle)``, without searching the zero bytes that end ``data``.

    Neo4j preallocates each transaction log (256 MiB of zeros, two per home), where a UTF-16
    needle, which holds zero bytes itself, is searched slowly. An occurrence's last nonzero
    byte lies before that run of zeros, so the occurrence ends at most ``z`` bytes into it,
    ``z`` being the zero bytes that end the needle: the count over that prefix is the count
    over all of ``data``.
    """
    end = len(data.rstrip(b"\0"))  # once per file, not once per needle
    found: dict[str, int] = {}
    for label, needle in wanted.items():
        z = len(needle) - len(needle.rstrip(b"\0"))
        within = data if z == len(needle) or end + z >= len(data) else data[:end + z]
        if count := within.count(needle):
            found[label] = count
    return found


def scan(home: Path, terms: list[str]) -> dict[str, dict[str, int]]:
    """Every file under ``home`` holding a form of a term: path (relative) to form to count."""
    wanted = {f"{term} / {label}": needle for term in terms
              for label, needle in needles(term).items()}
    hits: dict[str, dict[str, int]] = {}
    for path in sorted(p for p in home.rglob("*") if p.is_file()):
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if found := counts(data, wanted):
            hits[str(path.relative_to(home))] = found
    return hits


def marker(rng: random.Random) -> str:
    """Two made-up capitalised words no record holds by chance."""
    def word() -> str:
        return "".join(rng.choice(string.ascii_lowercase) for _ in range(9)).capitalize()
    return f"{word()} {word()}"


def load(memory: Memory, term: str, user: str, records: int, *, cue: bool = True) -> None:
    """The subject's records (one asserting a key and one in a thread that name the term),
    another user's mention (in an asserted key and a thread too), a logged query and
    (``cue``) an intention whose cue and action hold the term, and another user's intention
    whose cue holds it."""
    created = "2026-03-02T09:00:00+00:00"
    rows: list[dict[str, Any]] = [{"id": f"{user}-r{i}", "kind": "semantic", "created_at": created,
             "content": f"Note {i} on {term}: prefers email contact at the main office.",
             "scope": {"tenant": "acme", "user": user},
             "provenance": {"source": "crm", "author": term},
             "metadata": {"about": term}, "authority": "human_instruction"}
            for i in range(records)]
    rows[0].update(asserts=f"contact channel of {term}", asserted_value="email")
    rows[-1].update(kind="episodic", thread=f"ticket of {term}", position=0)
    rows.append({"id": f"{user}-other", "kind": "episodic", "created_at": created,
                 "content": f"Team meeting: {term} will present the quarterly roadmap.",
                 "scope": {"tenant": "acme", "user": f"{user}-colleague"},
                 "thread": f"meetings with {term}", "position": 0,
                 "provenance": {"source": "calendar"}, "authority": "human_instruction"})
    rows.append({"id": f"{user}-other-key", "kind": "semantic", "created_at": created,
                 "content": "The colleague's deputy is on leave.",
                 "scope": {"tenant": "acme", "user": f"{user}-colleague"},
                 "asserts": f"deputy of {term}", "asserted_value": "on leave",
                 "authority": "human_instruction"})
    memory.put_many(rows)
    if cue:
        memory.intend({"id": f"{user}-intent",
                       "action": f"Call {term} back about the refund",
                       "trigger_kind": "keyword", "trigger_value": term,
                       "scope": {"tenant": "acme", "user": user}, "created_at": created})
        memory.intend({"id": f"{user}-other-intent", "action": "Prepare the roadmap slides",
                       "trigger_kind": "keyword", "trigger_value": f"meeting with {term}",
                       "scope": {"tenant": "acme", "user": f"{user}-colleague"},
                       "created_at": created})
    memory.retrieve(DecisionState(memory_scope={"tenant": "acme", "user": user},
                                  goal=f"What does {term} prefer?",
                                  last_observation=f"{term} asked about the office",
                                  needs_prior_context=True),
                    principal=Principal(tenants=frozenset({"acme"}),
                                              clearance=Sensitivity.NORMAL),
                    budget_chars=2000)


def erase(memory: Memory, term: str, user: str, purge: bool) -> dict[str, Any]:
    """Plan and apply the subject's erasure with ``term`` redacted; the apply's figures."""
    plan = memory.plan_deletion(subject={"tenant": "acme", "user": user}, redact_terms=[term],
                                requested_by="dpo", reason="erasure residue benchmark")
    start = time.perf_counter()
    done = apply_deletion(store_of(memory), plan, settle_disk=purge)
    seconds = time.perf_counter() - start
    return {"apply_s": seconds, "passed": done.verification.passed,
            "purge_s": done.disk.seconds if done.disk else None,
            "zeroed_records": done.disk.zeroed_records if done.disk else None,
            "nodes": len(plan.entries)}


def _rounds(rounds: int, records: int, rng: random.Random, home: Path,
            runs: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Run the rounds into ``runs``; the scan for every term after the server stopped."""
    # a slow start on a busy machine is no result: wait for it longer than the default
    with EphemeralServer(home=home, timeout_s=600) as server, \
            Memory.connect(server.settings) as memory:
        warm = marker(rng)  # plans every query once, unmeasured (erased like the rest)
        load(memory, warm, "u-warm-up", records)
        erase(memory, warm, "u-warm-up", purge=True)
        for r in range(rounds):
            modes = (("without purge", "with purge") if r % 2 == 0
                     else ("with purge", "without purge"))
            for mode in modes:
                term, user = marker(rng), f"u-{r}-{len(runs)}"
                load(memory, term, user, records)
                figures = erase(memory, term, user, purge=mode == "with purge")
                hits = scan(home, [term])
                runs.append({"round": r, "mode": mode, "term": term, **figures,
                             "files_with_term": hits,
                             "occurrences": sum(sum(v.values()) for v in hits.values())})
    return scan(home, [run["term"] for run in runs])


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the experiment; returns (and writes) its figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--records", type=int, default=20)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--before", type=Path, default=None,
                        help="A result of an earlier version (same options) to show side by "
                             "side with this run's and keep in its result.")
    parser.add_argument("--label", default=None,
                        help="What version of graphmem ran (kept in the result).")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    runs: list[dict[str, Any]] = []
    home = Path(tempfile.mkdtemp(prefix="graphmem-residue-"))
    try:
        final = _rounds(args.rounds, args.records, rng, home, runs)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    summary = {mode: {"apply_s_median": statistics.median(
        x["apply_s"] for x in runs if x["mode"] == mode),
        "apply_s": [round(x["apply_s"], 3) for x in runs if x["mode"] == mode],
        "occurrences": [x["occurrences"] for x in runs if x["mode"] == mode]}
        for mode in ("without purge", "with purge")}
    result = {"date": datetime.now(UTC).isoformat(timespec="seconds"),
              "machine": f"{platform.machine()} {platform.system()}",
              "neo4j": "5.26.30 Community (graphmem launcher)", "version": args.label,
              "records_per_subject": args.records, "runs": runs, "summary": summary,
              "after_all_rounds_all_terms": final}
    table = Table(title="Erasure residue on the local server (files holding the term)")
    for col in ("round", "mode", "nodes", "apply s", "purge s", "zeroed", "occurrences",
                "files"):
        table.add_column(col)
    for x in runs:
        table.add_row(str(x["round"]), x["mode"], str(x["nodes"]), f"{x['apply_s']:.3f}",
                      "" if x["purge_s"] is None else f"{x['purge_s']:.3f}",
                      "" if x["zeroed_records"] is None else str(x["zeroed_records"]),
                      str(x["occurrences"]), ", ".join(x["files_with_term"]))
    console.print(table)
    console.print(json.dumps(summary, indent=1))
    if args.before is not None:
        result["before"] = _side_by_side(json.loads(args.before.read_text(encoding="utf-8")),
                                         result)
    out = args.out or RESULTS / f"erasure-residue-{datetime.now(UTC):%Y%m%d}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    console.print(f"wrote {out}")
    return result


def _side_by_side(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """Print an earlier version's figures beside this run's; what the result keeps of them."""
    table = Table(title="Before and after (apply seconds: median and each; copies left)")
    for col in ("mode", "apply s before", "apply s after", "copies before", "copies after"):
        table.add_column(col)
    for mode in ("without purge", "with purge"):
        b, a = before["summary"][mode], after["summary"][mode]
        table.add_row(mode, f"{b['apply_s_median']:.3f} {b['apply_s']}",
                      f"{a['apply_s_median']:.3f} {a['apply_s']}",
                      str(b["occurrences"]), str(a["occurrences"]))
    console.print(table)

    def left(result: dict[str, Any]) -> int:
        return sum(sum(v.values()) for v in result["after_all_rounds_all_terms"].values())
    console.print(f"copies of every term after the server stopped: before {left(before)}, "
                  f"after {left(after)}")
    return {"date": before["date"], "summary": before["summary"],
            "after_all_rounds_all_terms": before["after_all_rounds_all_terms"],
            "version": before.get("version")}


if __name__ == "__main__":
    main()
