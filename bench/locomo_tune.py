"""Tuning the lexical ranker on LoCoMo conversations 0-4 only, in process (no Neo4j).

The read path ranks exactly the eligible candidates; for LoCoMo every turn of a
conversation is eligible, so ranking the loader's records directly gives the ranked list
that ``Memory.retrieve`` would give (the held-out figures come from ``bench.locomo``).
Prints R@1/5/10/20 (categories 1-4) and multi-hop R@10 for each setting of a small grid:
the entity boosts (records naming the question's entities, records they produced), the BM25
thread settings, dates on or off, and with ``--hybrid`` the weight of the embedding beside
BM25 in score-normalised fusion (needs the ``embeddings`` extra).

    python -m bench.locomo_tune [--conversations 0-4] [--hybrid] [--data PATH]
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Sequence
from functools import partial
from pathlib import Path

import numpy as np

from bench.locomo import DEFAULT_DATA, OVERALL_CATEGORIES, load_conversations, records_for
from graphmem.read.rankers import (
    BM25_DEFAULTS,
    BM25Ranker,
    EmbeddingRanker,
    HybridRanker,
    Ranker,
    order_by_score,
)
from graphmem.read.steps import DecisionState, search_text


def evaluate(ranker: Ranker, conversations: Sequence[int],
             data: Path = DEFAULT_DATA) -> dict[str, float]:
    """Mean evidence recall@k over categories 1-4, and multi-hop R@10."""
    convs = load_conversations(data)
    rows: list[tuple[int, dict[int, float]]] = []
    for ci in conversations:
        conv = convs[ci]
        records = records_for(conv)
        prefix = f"{conv.id}:"
        for q in conv.questions:
            if q.category not in OVERALL_CATEGORIES:
                continue
            state = DecisionState(memory_scope={"tenant": conv.id}, goal=q.text,
                                  needs_prior_context=True)
            scores = ranker.score(search_text(state), records)
            ranked = [r.id.removeprefix(prefix) for r, s in order_by_score(records, scores)
                      if s > 0]
            rows.append((q.category, {k: len(q.evidence & set(ranked[:k])) / len(q.evidence)
                                      for k in (1, 5, 10, 20)}))
    out = {f"@{k}": float(np.mean([r[k] for _, r in rows])) for k in (1, 5, 10, 20)}
    out["mh@10"] = float(np.mean([r[10] for c, r in rows if c == 1]))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.locomo_tune")
    parser.add_argument("--conversations", default="0-4")
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="path to locomo10.json")
    parser.add_argument("--hybrid", action="store_true",
                        help="tune the fusion weight of the hybrid ranker instead")
    args = parser.parse_args(argv)
    lo, hi = (int(x) for x in args.conversations.split("-"))
    run = partial(evaluate, data=Path(args.data))
    if args.hybrid:
        semantic = EmbeddingRanker()  # shared: each turn is encoded once
        lexical = BM25Ranker(**BM25_DEFAULTS)
        for w_sem in (0.5, 0.75, 1.0, 1.25, 1.5, 2.0):
            hybrid = HybridRanker(lexical, semantic, weights=(1.0, w_sem))
            res = run(hybrid, range(lo, hi + 1))
            print(f"hybrid weights=(1.0, {w_sem}) "
                  + " ".join(f"{k}={v:.3f}" for k, v in res.items()), flush=True)
        return 0
    for entity_boost, source_boost in itertools.product((0.0, 0.5, 1.0), (0.0, 0.5, 1.0)):
        boosts = {"entity_boost": entity_boost, "source_boost": source_boost}
        res = run(BM25Ranker(**(BM25_DEFAULTS | boosts)), range(lo, hi + 1))
        print(f"entity_boost={entity_boost} source_boost={source_boost} "
              + " ".join(f"{k}={v:.3f}" for k, v in res.items()), flush=True)
    for dates in (False, True):
        res = run(BM25Ranker(**(BM25_DEFAULTS | {"dates": dates})), range(lo, hi + 1))
        print(f"defaults dates={dates} " + " ".join(f"{k}={v:.3f}" for k, v in res.items()),
              flush=True)
    grid = itertools.product((1, 2), (0.0, 0.5, 1.0, 2.0), (0.0, 0.3, 0.6))
    for window, context_weight, propagate in grid:
        if context_weight == 0 and window > 1 and propagate == 0:
            continue
        ranker = BM25Ranker(**(BM25_DEFAULTS | {"window": window, "propagate": propagate,
                                                 "context_weight": context_weight}))
        res = run(ranker, range(lo, hi + 1))
        print(f"window={window} context_weight={context_weight} propagate={propagate} "
              + " ".join(f"{k}={v:.3f}" for k, v in res.items()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
