"""LoCoMo read-path benchmark: evidence recall@k of graphmem's rankers, no language model.

Loads ``locomo10.json`` (Maharana et al., ACL 2024; CC BY-NC 4.0, research use: read from
``--data``, never copied into the repo or the package), writes one episodic record per
dialogue turn through :meth:`graphmem.Memory.put_many` (no write policy):

* id ``"{conversation}:{dia_id}"``, scope ``{"tenant": conversation}``,
* ``created_at`` the session's date-time (``"1:56 pm on 8 May, 2023"``, taken as UTC),
* content ``"speaker: text"``,

then asks every question that has evidence through :meth:`graphmem.Memory.retrieve`
(``needs_prior_context`` trigger, the question as the goal, ``k=20``, an unlimited budget,
``now`` one day after the conversation's last session) and measures evidence recall@1/5/10/20
per category over the trace's ranked list (records with score > 0), plus the wall-clock
latency of each ``retrieve`` call (candidates from Cypher, ranking, attribution log).

Side by side, the reference figure of the dataset's README: plain bm25s (English stop words,
Snowball stemming) over the same turns of each conversation, the raw question as query.

"Overall" is categories 1-4 (the 1,536 questions the reference is measured on); category 5
(adversarial: the answer is not in the conversation) is reported on its own row.

Run from the repo root::

    HF_HUB_OFFLINE=1 python -m bench.locomo                       # everything
    python -m bench.locomo --limit-conversations 1 --rankers bm25  # a quick look

Neo4j: ``NEO4J_URI`` when set, else a throwaway :class:`graphmem.db.server.EphemeralServer`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import bm25s
import numpy as np
import Stemmer
from rich.console import Console
from rich.table import Table

from graphmem import Memory
from graphmem.db.settings import ConnectionSettings
from graphmem.models import MemoryKind, MemoryRecord, Principal
from graphmem.read.rankers import (
    BM25_DEFAULTS,
    DEFAULT_RANKER,
    BM25Ranker,
    EmbeddingRanker,
    HybridRanker,
    Ranker,
)
from graphmem.read.steps import DecisionState

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared/datasets/locomo/locomo10.json"
DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "locomo.json"
KS = (1, 5, 10, 20)
RANKERS = ("bm25", "embedding", "hybrid")
REFERENCE = "bm25s-ref"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop",
              5: "adversarial"}
OVERALL_CATEGORIES = (1, 2, 3, 4)
DATE_FORMAT = "%I:%M %p on %d %B, %Y"
_SESSION_KEY = re.compile(r"^session_(\d+)$")
_DIA_ID = re.compile(r"^D:?(\d+):0*(\d+)$")


# ----------------------------------------------------------------------------- data


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    session: int
    at: datetime

    @property
    def content(self) -> str:
        return f"{self.speaker}: {self.text}"


@dataclass(frozen=True)
class Question:
    index: int
    text: str
    category: int
    evidence: frozenset[str]


@dataclass
class Conversation:
    id: str
    turns: list[Turn]
    questions: list[Question]
    skipped_no_evidence: int = 0
    evidence_repaired: list[str] = field(default_factory=list)
    evidence_dropped: list[str] = field(default_factory=list)

    @property
    def now(self) -> datetime:
        """A retrieval time after every session."""
        return max(t.at for t in self.turns) + timedelta(days=1)


def parse_session_time(text: str) -> datetime:
    """``"1:56 pm on 8 May, 2023"`` as an aware UTC datetime."""
    return datetime.strptime(text.strip(), DATE_FORMAT).replace(tzinfo=UTC)


def _evidence(raw: Sequence[str], known: set[str], conv: Conversation) -> frozenset[str]:
    """Normalise annotated evidence ids: split joined ids, repair ``D:11:26``/``D30:05``,
    drop ids that name no turn of the conversation (each change is recorded)."""
    found: set[str] = set()
    for entry in raw:
        for part in re.split(r"[;,\s]+", entry.strip()):
            if not part:
                continue
            m = _DIA_ID.match(part)
            norm = f"D{int(m.group(1))}:{int(m.group(2))}" if m else part
            if norm in known:
                found.add(norm)
                if norm != entry:
                    conv.evidence_repaired.append(f"{conv.id} {entry!r} -> {norm}")
            else:
                conv.evidence_dropped.append(f"{conv.id} {part!r}")
    return frozenset(found)


def load_conversations(path: Path) -> list[Conversation]:
    """Every conversation of ``locomo10.json``, with its turns in order and its questions."""
    data = json.loads(path.read_text(encoding="utf-8"))
    conversations = []
    for item in data:
        body = item["conversation"]
        sessions = sorted(int(m.group(1)) for key in body if (m := _SESSION_KEY.match(key)))
        conv = Conversation(id=item["sample_id"], turns=[], questions=[])
        for n in sessions:
            at = parse_session_time(body[f"session_{n}_date_time"])
            conv.turns.extend(Turn(t["dia_id"], t["speaker"], t["text"], n, at)
                              for t in body[f"session_{n}"])
        known = {t.dia_id for t in conv.turns}
        if len(known) != len(conv.turns):
            raise ValueError(f"{conv.id}: repeated dia_id")
        for i, qa in enumerate(item["qa"]):
            evidence = _evidence(qa.get("evidence") or [], known, conv)
            if not evidence:
                conv.skipped_no_evidence += 1
                continue
            conv.questions.append(Question(i, qa["question"], int(qa["category"]), evidence))
        conversations.append(conv)
    return conversations


def records_for(conv: Conversation) -> list[MemoryRecord]:
    """One episodic record per turn, the conversation as tenant, the session time as created,
    the session as its thread and the turn's place in it as its position."""
    positions: dict[int, int] = defaultdict(int)
    records = []
    for t in conv.turns:
        records.append(MemoryRecord(
            id=f"{conv.id}:{t.dia_id}",
            kind=MemoryKind.EPISODIC,
            content=t.content,
            created_at=t.at,
            scope={"tenant": conv.id},
            provenance={"source": "locomo", "speaker": t.speaker},
            metadata={"dia_id": t.dia_id, "session": t.session},
            thread=f"session_{t.session}",
            position=positions[t.session],
        ))
        positions[t.session] += 1
    return records


# ----------------------------------------------------------------------------- metrics


def recall_at(ranked: Sequence[str], evidence: frozenset[str]) -> dict[int, float]:
    """Fraction of ``evidence`` among the first k of ``ranked``, for each k in KS."""
    return {k: len(evidence & set(ranked[:k])) / len(evidence) for k in KS}


@dataclass
class Tally:
    """Recall per question (by category) and latency per call, for one ranker."""

    recalls: dict[int, list[dict[int, float]]] = field(default_factory=lambda: defaultdict(list))
    latencies_ms: list[float] = field(default_factory=list)

    def add(self, category: int, recall: dict[int, float], ms: float) -> None:
        self.recalls[category].append(recall)
        self.latencies_ms.append(ms)

    def summary(self) -> dict[str, Any]:
        groups: dict[str, list[dict[int, float]]] = {
            "overall": [r for c in OVERALL_CATEGORIES for r in self.recalls.get(c, [])]
        }
        for c in sorted(self.recalls):
            groups[f"{c}:{CATEGORIES.get(c, '?')}"] = self.recalls[c]
        recall = {
            name: {"n": len(rows), **{f"@{k}": round(float(np.mean([r[k] for r in rows])), 4)
                                      if rows else None for k in KS}}
            for name, rows in groups.items()
        }
        lat = np.asarray(self.latencies_ms) if self.latencies_ms else np.zeros(1)
        latency = {"n": len(self.latencies_ms),
                   "p50_ms": round(float(np.percentile(lat, 50)), 2),
                   "p95_ms": round(float(np.percentile(lat, 95)), 2),
                   "mean_ms": round(float(lat.mean()), 2)}
        return {"recall": recall, "latency": latency}


# ----------------------------------------------------------------------------- reference


@dataclass
class ReferenceBM25:
    """Plain bm25s over one conversation's turns (the dataset README's reference figure)."""

    ids: list[str]
    retriever: Any

    @classmethod
    def build(cls, conv: Conversation, stemmer: Any) -> ReferenceBM25:
        corpus = bm25s.tokenize([t.content for t in conv.turns], stopwords="en",
                                stemmer=stemmer, show_progress=False)
        retriever = bm25s.BM25()
        retriever.index(corpus, show_progress=False)
        return cls([t.dia_id for t in conv.turns], retriever)

    def ranked(self, question: str, stemmer: Any) -> list[str]:
        tokens = bm25s.tokenize([question], stopwords="en", stemmer=stemmer,
                                return_ids=False, show_progress=False)[0]
        tokens = [t for t in tokens if t in self.retriever.vocab_dict]
        if not tokens:
            return []
        scores = self.retriever.get_scores(tokens)
        order = np.argsort(-scores, kind="stable")
        return [self.ids[i] for i in order if scores[i] > 0]


# ----------------------------------------------------------------------------- run


@contextmanager
def connect() -> Iterator[tuple[Memory, str]]:
    """``NEO4J_URI`` when set, else a throwaway Neo4j owned by this run."""
    settings = ConnectionSettings.from_env()
    if settings is not None:
        with Memory.connect(settings, start_if_needed=False) as memory:
            yield memory, f"NEO4J_URI ({settings.uri})"
        return
    from graphmem.db.server import EphemeralServer

    with EphemeralServer() as server, \
            Memory.connect(server.settings, start_if_needed=False) as memory:
        yield memory, "EphemeralServer (throwaway)"


def make_rankers(names: Sequence[str]) -> tuple[dict[str, Ranker], EmbeddingRanker | None]:
    """One instance per name for a conversation; the hybrid shares the embedding cache.

    Returns the rankers by name and the shared embedding ranker (None if unused).
    """
    embedding = EmbeddingRanker()
    made: dict[str, Ranker] = {}
    for name in names:
        if name == "bm25":
            made[name] = BM25Ranker(**BM25_DEFAULTS)
        elif name == "embedding":
            made[name] = embedding
        elif name == "hybrid":
            made[name] = HybridRanker(semantic=embedding)
        else:
            raise SystemExit(f"unknown ranker {name!r}; choose from {', '.join(RANKERS)}")
    uses_embedding = "embedding" in made or "hybrid" in made
    return made, embedding if uses_embedding else None


def run(args: argparse.Namespace, console: Console) -> dict[str, Any]:
    data_path = Path(args.data)
    if not data_path.is_file():
        raise SystemExit(f"no LoCoMo file at {data_path} (use --data PATH)")
    conversations = load_conversations(data_path)
    if args.limit_conversations is not None:
        conversations = conversations[: args.limit_conversations]
    names = [n.strip() for n in args.rankers.split(",") if n.strip()]
    stemmer = Stemmer.Stemmer("english")
    tallies = {name: Tally() for name in [*names, REFERENCE]}
    # conversations 0-4 tuned the ranker (bench/locomo_tune.py); 5-9 are held out
    splits = {split: {name: Tally() for name in [*names, REFERENCE]}
              for split in ("tuned_0_4", "held_out_5_9")}
    timings: dict[str, float] = defaultdict(float)
    started = time.perf_counter()
    hybrid_config: dict[str, Any] = {}

    with connect() as (memory, backend):
        for ci, conv in enumerate(conversations, start=1):
            t0 = time.perf_counter()
            memory.put_many(records_for(conv))
            timings["load_s"] += time.perf_counter() - t0

            principal = Principal(tenants=frozenset({conv.id}))
            scope = {"tenant": conv.id}
            rankers, embedding = make_rankers(names)
            if "hybrid" in rankers:
                h = rankers["hybrid"]
                assert isinstance(h, HybridRanker)
                hybrid_config = {k: v for k, v in vars(h).items()
                                 if isinstance(v, int | float | str | tuple)}
            t0 = time.perf_counter()
            if embedding is not None:
                # encode every turn once up front (cached by (id, content)), untimed
                candidates = memory.candidates(principal=principal, scope=scope, now=conv.now)
                embedding.score("warm up", candidates)
            if ci == 1:  # first calls of the process (driver, torch) are not measured
                for ranker in rankers.values():
                    memory.retrieve(DecisionState(memory_scope=scope, goal="warm up",
                                                  needs_prior_context=True),
                                    principal=principal, ranker=ranker, k=20,
                                    budget_chars=10**9, now=conv.now)
            timings["warmup_s"] += time.perf_counter() - t0

            split = "tuned_0_4" if ci <= 5 else "held_out_5_9"
            reference = ReferenceBM25.build(conv, stemmer)
            prefix = f"{conv.id}:"
            t0 = time.perf_counter()
            for q in conv.questions:
                state = DecisionState(memory_scope=scope, goal=q.text, needs_prior_context=True)
                for name, ranker in rankers.items():  # interleaved: same load for each ranker
                    t = time.perf_counter()
                    result = memory.retrieve(state, principal=principal, ranker=ranker, k=20,
                                             budget_chars=10**9, now=conv.now)
                    ms = (time.perf_counter() - t) * 1000
                    ranked = [rid.removeprefix(prefix) for rid, score in result.trace.ranked
                              if score > 0]
                    tallies[name].add(q.category, recall_at(ranked, q.evidence), ms)
                    splits[split][name].add(q.category, recall_at(ranked, q.evidence), ms)
                t = time.perf_counter()
                ref_ranked = reference.ranked(q.text, stemmer)
                ms = (time.perf_counter() - t) * 1000
                tallies[REFERENCE].add(q.category, recall_at(ref_ranked, q.evidence), ms)
                splits[split][REFERENCE].add(q.category, recall_at(ref_ranked, q.evidence), ms)
            timings["questions_s"] += time.perf_counter() - t0
            console.log(f"[{ci}/{len(conversations)}] {conv.id}: {len(conv.turns)} turns, "
                        f"{len(conv.questions)} questions, "
                        f"{time.perf_counter() - t0:.0f}s")

    return {
        "benchmark": "locomo read-path evidence recall",
        "default_ranker": DEFAULT_RANKER,
        "dataset": {
            "path": str(data_path),
            "sha256": hashlib.sha256(data_path.read_bytes()).hexdigest(),
            "conversations": [c.id for c in conversations],
            "turns": sum(len(c.turns) for c in conversations),
            "questions_asked": sum(len(c.questions) for c in conversations),
            "questions_asked_overall_categories": sum(
                1 for c in conversations for q in c.questions
                if q.category in OVERALL_CATEGORIES),
            "questions_skipped_no_evidence": sum(c.skipped_no_evidence for c in conversations),
            "evidence_ids_repaired": [e for c in conversations for e in c.evidence_repaired],
            "evidence_ids_dropped_unknown": [e for c in conversations
                                             for e in c.evidence_dropped],
        },
        "protocol": {
            "record": "one episodic record per turn; id conv:dia_id; tenant conv; "
                      "created_at session time (UTC); content 'speaker: text'; put_many",
            "thread": "each session a thread, each turn's place in it a position (NEXT)",
            "retrieve": "DecisionState(goal=question, needs_prior_context=True), k=20, "
                        "budget_chars=1e9, now=last session + 1 day; top-k from "
                        "trace.ranked with score > 0",
            "overall": "categories 1-4 (category 5 reported separately)",
            "latency": "wall clock of Memory.retrieve (Cypher candidates, ranking, "
                       "attribution log); bm25s-ref: query only, in-process index",
            "reference": "bm25s, stopwords='en', PyStemmer english, raw question, per "
                         "conversation, 'speaker: text' turns",
            "hybrid_config": hybrid_config,
            "bm25_config": BM25_DEFAULTS,
        },
        "backend": backend,
        "rankers": {name: tally.summary() for name, tally in tallies.items()},
        "splits": {split: {name: tally.summary() for name, tally in by_name.items()
                           if tally.latencies_ms}
                   for split, by_name in splits.items()},
        "timings_s": {k: round(v, 1) for k, v in timings.items()}
                     | {"total_s": round(time.perf_counter() - started, 1)},
        "machine": machine(),
    }


def machine() -> dict[str, Any]:
    info: dict[str, Any] = {
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
    }
    with suppress(OSError):
        info["load_avg"] = [round(x, 2) for x in os.getloadavg()]
    try:
        import torch

        info["torch_threads"] = torch.get_num_threads()
    except ImportError:
        pass
    try:
        root = Path(__file__).resolve().parents[1]
        info["git_commit"] = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True,
            text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "graphmem/read/rankers.py"],
                               cwd=root, capture_output=True, text=True).stdout.strip()
        info["ranking_py_modified"] = bool(dirty)
    except (OSError, subprocess.CalledProcessError):
        pass
    info["date"] = datetime.now(UTC).isoformat(timespec="seconds")
    return info


# ----------------------------------------------------------------------------- output


def _groups(results: dict[str, Any]) -> list[str]:
    first = next(iter(results["rankers"].values()))
    return list(first["recall"])


def rich_table(results: dict[str, Any]) -> Table:
    table = Table(title=f"LoCoMo evidence recall@k ({results['dataset']['turns']} turns, "
                        f"{results['dataset']['questions_asked']} questions; overall = "
                        "categories 1-4)")
    for col in ("category", "ranker", "n", "R@1", "R@5", "R@10", "R@20"):
        table.add_column(col, justify="left" if col in ("category", "ranker") else "right")
    for group in _groups(results):
        for name, summary in results["rankers"].items():
            row = summary["recall"][group]
            table.add_row(group, name, str(row["n"]),
                          *(f"{row[f'@{k}']:.3f}" for k in KS),
                          end_section=name == list(results["rankers"])[-1])
    return table


def latency_table(results: dict[str, Any]) -> Table:
    table = Table(title="Retrieval latency per call (ms)")
    for col in ("ranker", "calls", "p50", "p95", "mean"):
        table.add_column(col, justify="left" if col == "ranker" else "right")
    for name, summary in results["rankers"].items():
        lat = summary["latency"]
        table.add_row(name, str(lat["n"]), f"{lat['p50_ms']:.1f}", f"{lat['p95_ms']:.1f}",
                      f"{lat['mean_ms']:.1f}")
    return table


def markdown(results: dict[str, Any]) -> str:
    """Recall@k per category and ranker, and latency, as Markdown tables: all conversations,
    then each split (held-out 5-9, tuned 0-4)."""
    parts = [f"Default ranker: `{results.get('default_ranker', 'bm25')}`. "
             f"Measured {results['machine'].get('date', '')}.\n", "## All conversations\n",
             _markdown_table(results["rankers"])]
    titles = {"held_out_5_9": "Held-out conversations 5-9", "tuned_0_4": "Tuned on 0-4"}
    for split in ("held_out_5_9", "tuned_0_4"):
        if results.get("splits", {}).get(split):
            parts += [f"\n## {titles[split]}\n", _markdown_table(results["splits"][split])]
    return "\n".join(parts)


def _markdown_table(by_ranker: dict[str, Any]) -> str:
    lines = ["| category | ranker | n | R@1 | R@5 | R@10 | R@20 | p50 ms | p95 ms |",
             "|---|---|--:|--:|--:|--:|--:|--:|--:|"]
    first = next(iter(by_ranker.values()))
    for group in first["recall"]:
        for name, summary in by_ranker.items():
            row, lat = summary["recall"][group], summary["latency"]
            timing = (f"{lat['p50_ms']:.1f} | {lat['p95_ms']:.1f}" if group == "overall"
                      else " | ")
            lines.append(f"| {group} | {name} | {row['n']} | "
                         + " | ".join(f"{row[f'@{k}']:.3f}" for k in KS) + f" | {timing} |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.locomo", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(DEFAULT_DATA),
                        help="path to locomo10.json (default: %(default)s)")
    parser.add_argument("--limit-conversations", type=int, default=None, metavar="N",
                        help="only the first N conversations")
    parser.add_argument("--rankers", default=",".join(RANKERS),
                        help="comma-separated graphmem rankers (default: %(default)s)")
    parser.add_argument("--out", default=str(DEFAULT_OUT),
                        help="results JSON (default: %(default)s); a .md table beside it")
    args = parser.parse_args(argv)
    console = Console(stderr=True)
    results = run(args, console)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    out.with_suffix(".md").write_text(markdown(results), encoding="utf-8")
    report = Console()
    report.print(rich_table(results))
    report.print(latency_table(results))
    skipped = results["dataset"]["questions_skipped_no_evidence"]
    report.print(f"{skipped} questions without evidence skipped; "
                 f"{len(results['dataset']['evidence_ids_dropped_unknown'])} evidence ids "
                 f"naming no turn dropped; results in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
