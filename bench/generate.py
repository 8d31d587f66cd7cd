"""Seeded generator of realistic graphmem stores for the scale benchmark.

Layout, for a total of ``total`` records over 100 tenants (``t000`` ... ``t099``):

* The **probe scope** ``{"tenant": "t000", "project": "atlas", "user": "u000"}`` sees a fixed
  ``visible`` records (default 9,000, i.e. ~10^4) at every total size: 20% tenant-wide
  records of ``t000``, 70% in project ``atlas``, 10% in user ``u000``'s own scope.
* Every other record (``total - visible``) lives in scopes the probe does not see: other
  projects and users of ``t000`` (10% of the rest) and the 99 other tenants, each with
  project- and user-level scopes.

Within every scope stream the mix is the same (seeded, reproducible):

* episodic turns, semantic facts, procedures (evidenced by episodes);
* asserted keys: ~12% of facts assert ``<entity>.<attribute>``; later assertions of a key mostly
  carry a different value (a materialised conflict); at most three records per
  (tenant, key), so conflict linking stays linear;
* supersession chains of length 2-4 inside one scope (each successor names its predecessor);
* 2% retracted (tombstones), 4% already expired, 4% expiring in the future, 3% not yet
  valid, 5% confidential and 1% restricted;
* a derivation DAG: summaries derived from 4-8 episodes, and summaries of summaries
  derived from 2-4 summaries (three levels).

Records are yielded as plain dicts (validated by ``put_many``) in an order where every
reference points to an earlier record, so they can be written in consecutive batches.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

__all__ = ["NOW", "PROBE_SCOPE", "StoreSpec", "generate"]

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
PROBE_SCOPE = {"tenant": "t000", "project": "atlas", "user": "u000"}
TENANTS = [f"t{i:03d}" for i in range(100)]

_TOPICS = {
    "billing": "invoice refund charge plan upgrade downgrade payment card currency tax discount",
    "deploy": "release rollout canary rollback cluster node pod image registry pipeline build",
    "support": "ticket customer escalation outage incident latency error timeout retry alert",
    "data": "schema migration index query table column backup restore replica snapshot",
    "security": "token secret rotation audit access role permission certificate breach policy",
    "product": "feature roadmap launch feedback survey metric churn onboarding pricing trial",
}
_NAMES = ("acme", "globex", "initech", "umbrella", "hooli", "stark", "wayne", "wonka",
          "tyrell", "cyberdyne", "soylent", "massive", "aperture", "vandelay", "oscorp")
_ATTRS = ("plan", "region", "owner", "currency", "tier", "contact", "timezone", "sla")
_VERBS = ("asked", "reported", "confirmed", "prefers", "requested", "noted", "decided",
          "approved", "rejected", "fixed")


@dataclass(frozen=True)
class StoreSpec:
    """What to generate: ``total`` records, ``visible`` of them in the probe scope."""

    total: int
    visible: int = 9_000
    seed: int = 6

    def streams(self) -> list[tuple[dict[str, str], int]]:
        """(scope, record count) for every scope stream, probe streams first."""
        visible = min(self.visible, self.total)
        probe = [
            ({"tenant": "t000"}, visible * 2 // 10),
            ({"tenant": "t000", "project": "atlas"}, visible * 7 // 10),
        ]
        probe.append((dict(PROBE_SCOPE), visible - sum(n for _, n in probe)))
        rest = self.total - visible
        other_scopes: list[dict[str, str]] = []
        for p in range(1, 4):  # t000's other projects and users: invisible to the probe
            other_scopes.append({"tenant": "t000", "project": f"proj{p}"})
            other_scopes.append({"tenant": "t000", "project": "atlas", "user": f"u{p:03d}"})
        t000_share = rest // 10
        streams = list(probe)
        streams += _split(other_scopes, t000_share)
        tenant_scopes: list[dict[str, str]] = []
        for t in TENANTS[1:]:
            tenant_scopes.append({"tenant": t})
            for p in range(3):
                tenant_scopes.append({"tenant": t, "project": f"proj{p}"})
                tenant_scopes.append({"tenant": t, "project": f"proj{p}", "user": f"u{p:03d}"})
        streams += _split(tenant_scopes, rest - t000_share)
        return [(s, n) for s, n in streams if n > 0]


def _split(scopes: list[dict[str, str]], total: int) -> list[tuple[dict[str, str], int]]:
    base, extra = divmod(total, len(scopes))
    return [(s, base + (1 if i < extra else 0)) for i, s in enumerate(scopes)]


def _sentence(rng: random.Random, topic: str, entity: str) -> str:
    words = _TOPICS[topic].split()
    picked = " ".join(rng.sample(words, 4))
    return (f"{entity} {rng.choice(_VERBS)} {picked} during the {topic} review "
            f"#{rng.randrange(10_000)}")


def _stream(rng: random.Random, scope: dict[str, str], count: int, prefix: str
            ) -> Iterator[dict[str, Any]]:
    """``count`` records of one scope, references always to earlier records of the stream."""
    made = 0
    episodes: list[str] = []
    summaries: list[str] = []
    chain_heads: list[tuple[str, int]] = []  # (id of the newest link, links so far)
    keys_used: dict[str, int] = {}
    serial = 0

    def base(kind: str, content: str) -> dict[str, Any]:
        nonlocal serial
        serial += 1
        created = NOW - timedelta(days=rng.uniform(1, 700))
        rec: dict[str, Any] = {
            "id": f"{prefix}-{serial:06d}",
            "kind": kind,
            "content": content,
            "created_at": created,
            "scope": scope,
            "provenance": {"source": rng.choice(("chat", "ticket", "crm", "runbook"))},
            "authority": rng.choices(
                ("untrusted", "model_inferred", "human_instruction", "verified_outcome",
                 "authoritative_source"), weights=(5, 50, 25, 15, 5))[0],
        }
        roll = rng.random()
        if roll < 0.02:
            rec["retracted"] = True
        elif roll < 0.06:
            rec["expires_at"] = NOW - timedelta(days=rng.uniform(0.5, 30))
            rec["created_at"] = min(created, rec["expires_at"] - timedelta(days=1))
        elif roll < 0.10:
            rec["expires_at"] = NOW + timedelta(days=rng.uniform(1, 365))
        elif roll < 0.13:
            rec["valid_from"] = NOW + timedelta(days=rng.uniform(1, 60))
        sens = rng.random()
        if sens < 0.01:
            rec["sensitivity"] = "restricted"
        elif sens < 0.06:
            rec["sensitivity"] = "confidential"
        return rec

    while made < count:
        topic = rng.choice(list(_TOPICS))
        entity = rng.choice(_NAMES)
        roll = rng.random()
        if roll < 0.45 or len(episodes) < 8:
            rec = base("episodic", _sentence(rng, topic, entity))
            episodes.append(rec["id"])
        elif roll < 0.60:
            rec = base("semantic", _sentence(rng, topic, entity))
            key = f"{entity}.{rng.choice(_ATTRS)}.{rng.randrange(400)}"
            if keys_used.get(key, 0) < 3:
                keys_used[key] = keys_used.get(key, 0) + 1
                rec["asserts"] = key
                # later assertions pick one of three values: most disagree (a conflict)
                rec["asserted_value"] = (f"v{rng.randrange(3)}" if keys_used[key] > 1
                                         else "v0")
        elif roll < 0.72:
            if chain_heads and rng.random() < 0.6:
                i = rng.randrange(len(chain_heads))
                old, links = chain_heads[i]
                rec = base("semantic", f"update: {_sentence(rng, topic, entity)}")
                rec["supersedes"] = (old,)
                if rng.random() < 0.7:
                    rec.pop("valid_from", None)
                if links + 1 >= 4:
                    chain_heads.pop(i)
                else:
                    chain_heads[i] = (rec["id"], links + 1)
            else:
                rec = base("semantic", _sentence(rng, topic, entity))
                chain_heads.append((rec["id"], 1))
                if len(chain_heads) > 50:
                    chain_heads.pop(0)
        elif roll < 0.80:
            rec = base("procedural", f"how to handle {topic} for {entity}: "
                                     f"{_sentence(rng, topic, entity)}")
            rec["evidence_ids"] = tuple(rng.sample(episodes[-50:], 2))
        elif roll < 0.93 or len(summaries) < 4:
            parents = tuple(rng.sample(episodes[-200:], rng.randint(4, 8)))
            rec = base("semantic", f"summary of {topic}: {_sentence(rng, topic, entity)}")
            rec["derived_from"] = parents
            rec["metadata"] = {"level": 1}
            summaries.append(rec["id"])
        else:
            parents = tuple(rng.sample(summaries[-40:], rng.randint(2, min(4, len(summaries)))))
            rec = base("semantic", f"summary of summaries on {topic}: "
                                   f"{_sentence(rng, topic, entity)}")
            rec["derived_from"] = parents
            rec["metadata"] = {"level": 2}
            summaries.append(rec["id"])
        yield rec
        made += 1


def generate(spec: StoreSpec) -> Iterator[dict[str, Any]]:
    """Every record of the store, in an order where references point backwards.

    Streams are interleaved in round-robin slices of 500 so that a batch mixes tenants the
    way a shared deployment's write traffic would.
    """
    rng = random.Random(spec.seed)
    iters = [
        _stream(random.Random(rng.getrandbits(64)), scope, n, f"s{i:04d}")
        for i, (scope, n) in enumerate(spec.streams())
    ]
    while iters:
        alive = []
        for it in iters:
            chunk = [r for _, r in zip(range(500), it, strict=False)]
            yield from chunk
            if len(chunk) == 500:
                alive.append(it)
        iters = alive
