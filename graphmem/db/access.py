"""What one client may reach and claim: the gate every id a bound client names goes through
(docs/spec/eligibility.md and docs/spec/write-path.md).

:class:`Access` pairs a principal (None: the operator, who reaches everything) with the
highest authority its writes may claim. The rule itself is
:meth:`graphmem.models.Principal.reaches` / :meth:`~graphmem.models.Principal.may_change`;
this module only fetches what the rule looks at (``cypher/records/reach.cypher``) and turns a
refusal into :class:`~graphmem.errors.OutOfReachError`, whose message names no id and says
nothing of whether the id exists, so a refused id and an unknown one look alike.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, Protocol

from graphmem.db.codec import coerce_record, require_aware, scope_pairs
from graphmem.errors import (
    AuthorityCeilingError,
    AuthorizationError,
    OutOfReachError,
    ValidationError,
)
from graphmem.limits import DEFAULT_LIMITS, InputLimits
from graphmem.models import Authority, MemoryRecord, Principal, Sensitivity

__all__ = ["HIDDEN_SUCCESSOR", "OPERATOR", "OUT_OF_REACH", "REFERENCE_FIELDS", "Access", "Node",
           "Reader", "ScopeQuery", "decision_within", "decode_pairs", "out_of_reach"]

Node = Literal["record", "intention", "either"]
"""Which node of an id a reach check judges (:meth:`Access.check_ids`)."""

HIDDEN_SUCCESSOR = "a record out of reach"
"""What a bound caller's record history says in place of the id of a successor it cannot
read (docs/spec/eligibility.md#confinement)."""

REFERENCE_FIELDS = ("supersedes", "derived_from", "evidence_ids")
"""The fields of a record that name other records (:meth:`Access.shown` leaves out of them
the ids a bound caller cannot read)."""

OUT_OF_REACH = ("names no memory within this caller's reach (another tenant's or user's, "
                "above its clearance, one it may read but not change, or none); nothing "
                "was done")


_CLAIM_TENANTS = re.compile(r"(; tenants )([^;\]]*)(; scope )")
"""The tenants :meth:`Access.decided_by` records in a bound writer's claim."""


def out_of_reach(what: str = "this call") -> OutOfReachError:
    """The one refusal for ids out of reach: no id, no count, no hint of existence."""
    return OutOfReachError(f"{what} {OUT_OF_REACH}")


class Reader(Protocol):
    """What the gate needs of a store: one named read query."""

    def read(self, name: str, **params: Any) -> list[dict[str, Any]]: ...


def decode_pairs(pairs: Iterable[str] | None) -> dict[str, str]:
    """A Scope node's ``pairs`` (JSON ``[key, value]`` strings) as a dict."""
    return {k: v for k, v in (json.loads(p) for p in pairs or ())}


def decision_within(principal: Principal, decision: Mapping[str, Any]) -> bool:
    """True if a write decision (its ``tenant``, its proposal's scope ``pairs`` and
    sensitivity ``rank``) is within ``principal``'s reach, as the proposal would be as a record.
    A decision logged before its scope and sensitivity were kept (``pairs`` None) is within
    reach of a principal with no confinement by its tenant alone, and never of a confined one:
    its scope is not known."""
    pairs = decision.get("pairs")
    if pairs is None:
        return decision.get("tenant") in principal.tenants and not principal.scope
    return principal.reaches(str(decision.get("tenant")),
                             Sensitivity.from_rank(decision.get("rank")), decode_pairs(pairs))


@dataclass(frozen=True)
class ScopeQuery:
    """A validated (principal, query scope, now) triple, as Cypher parameters; the scope is
    confined to the principal (:meth:`Principal.confine`).

    Raises:
        AuthorizationError: the scope's tenant is not the principal's, or it contradicts the
            principal's confinement.
        ValidationError: the scope lacks ``tenant`` or has empty keys or values; ``principal``
            is not a :class:`Principal`.
        NaiveDatetimeError: ``now`` has no timezone.
    """

    principal: Principal
    scope: dict[str, str]
    now: datetime

    @classmethod
    def build(cls, principal: Principal, scope: dict[str, str], now: datetime,
              limits: InputLimits = DEFAULT_LIMITS) -> ScopeQuery:
        """Validate and build; see the class docstring for the errors (and ``limits``'
        ``scope_bytes``: a query scope larger than any stored scope is refused)."""
        if not isinstance(principal, Principal):  # Was a raw AttributeError
            raise ValidationError(f"principal must be a graphmem Principal, got "
                                  f"{type(principal).__name__}")
        scope = limits.check_scope("the query scope", scope, tenant=True)
        now = require_aware(now, "now")
        if scope["tenant"] not in principal.tenants:
            raise AuthorizationError(
                f"principal may not read tenant {scope['tenant']!r} "
                f"(may read: {sorted(principal.tenants)})"
            )
        return cls(principal=principal, scope=principal.confine(scope), now=now)

    def params(self) -> dict[str, Any]:
        """The Cypher parameters shared by eligibility queries."""
        return {
            "tenant": self.scope["tenant"],
            "tenants": sorted(self.principal.tenants),
            "pairs": scope_pairs(self.scope),
            "clearance": self.principal.clearance.rank,
            "now": self.now,
        }


@dataclass(frozen=True)
class Access:
    """A client's reach and authority ceiling.

    Attributes:
        principal: who the client acts for; None: the operator (no confinement, no check).
        max_authority: the highest :class:`~graphmem.models.Authority` a write may claim;
            None: no ceiling (the operator).
    """

    principal: Principal | None = None
    max_authority: Authority | None = None

    @property
    def bound(self) -> bool:
        """True when a principal confines this client."""
        return self.principal is not None

    def reader(self, given: Principal | None) -> Principal:
        """The principal a read runs as: ``given``, or the bound one when omitted.

        Raises:
            ValidationError: no principal given to a client bound to none.
            AuthorizationError: ``given`` reaches beyond the bound principal.
        """
        if self.principal is None:
            if given is None:
                raise ValidationError("pass principal=: this client is not bound to one "
                                      "(Memory.confined binds one)")
            return given
        if given is None:
            return self.principal
        if not isinstance(given, Principal):
            raise ValidationError(f"principal must be a graphmem Principal, got "
                                  f"{type(given).__name__}")
        self.check_within(given)
        return given

    def check_within(self, principal: Principal) -> None:
        """Refuse ``principal`` when it reaches beyond the bound one (nothing for the
        operator): what :meth:`reader` checks of a principal given, for a value made from one
        already (a :class:`ScopeQuery` handed in), without counting as a second authorization.

        Raises:
            AuthorizationError: it reaches further than this client's principal.
        """
        if self.principal is not None and not self.principal.covers(principal):
            raise AuthorizationError("the principal given reaches beyond the one this "
                                     "client is bound to; nothing was done")

    def authorize(self, given: Principal | None, scope: dict[str, str], now: datetime,
                  limits: InputLimits = DEFAULT_LIMITS) -> ScopeQuery:
        """A read's one authorization: the principal it runs as (:meth:`reader`) and its
        query scope checked against that principal and confined to it, as the value every
        step of the read takes (the read path checks nothing again).

        Args:
            given: the principal passed to the call (None: the bound one).
            scope: the query scope (must hold ``tenant``). now: aware UTC.
            limits: the bounds of the scope.

        Raises:
            as :meth:`reader` and :meth:`ScopeQuery.build`.
        """
        return ScopeQuery.build(self.reader(given), scope, now, limits)

    def allows(self, tenant: str | None, sensitivity: Sensitivity, scope: Mapping[str, str],
               *, change: bool) -> bool:
        """The rule, for a bound client (True for the operator)."""
        p = self.principal
        if p is None:
            return True
        if tenant is None:
            return False
        return (p.may_change if change else p.reaches)(tenant, sensitivity, scope)

    def check_ids(self, store: Reader, ids: Iterable[str], *, change: bool = False,
                  what: str = "this call", node: Node = "record") -> None:
        """Refuse unless every id names a node within reach (``change``: one the principal
        may also change). Nothing for the operator.

        ``node`` says which node of an id is judged: ``record`` (the default) or
        ``intention`` (a record and an intention may share an id, so a call about one is
        never judged by the other), or ``either`` (the record, else the intention: how a
        deletion root is resolved).

        Raises:
            OutOfReachError: an id out of reach or naming nothing.
            ValidationError: too many ids, or one too long to be an id
                (:meth:`graphmem.limits.InputLimits.check_lookup`), for every caller.
        """
        ids = list(ids)
        getattr(store, "limits", DEFAULT_LIMITS).check_lookup(what, ids)
        wanted = sorted({i for i in ids if isinstance(i, str)})
        if self.principal is None or not wanted:
            return
        for row in store.read("records/reach", ids=wanted, node=node):
            if not row["found"] or not self.allows(
                    row["tenant"], Sensitivity.from_rank(row["rank"]), decode_pairs(row["pairs"]),
                    change=change):
                raise out_of_reach(what)

    def visible(self, store: Reader, ids: Iterable[str], node: Node = "either") -> set[str]:
        """The ids among ``ids`` whose ``node`` (as in :meth:`check_ids`) is within reach
        (all of them for the operator)."""
        wanted = sorted(set(ids))
        if self.principal is None:
            return set(wanted)
        return {row["id"] for row in store.read("records/reach", ids=wanted, node=node)
                if row["found"] and self.allows(
                    row["tenant"], Sensitivity.from_rank(row["rank"]), decode_pairs(row["pairs"]),
                    change=False)}

    def shown(self, store: Reader, records: Sequence[MemoryRecord], *,
              within: Iterable[str] = ()) -> list[MemoryRecord]:
        """``records`` as this client may see them: for a bound client, the ids in their
        :data:`REFERENCE_FIELDS` that name no record within reach are left out (a wider
        principal may have superseded, derived from or cited another user's record in one of
        the caller's), as lineage leaves such records out
        (docs/spec/eligibility.md#confinement). The operator's come back as given; the store
        is asked only about ids that are neither among ``records`` nor in ``within`` (both
        within reach already), so a retrieve whose memories name only its candidates sends
        no query more than before this rule.

        Args:
            store: where reach is read (``records/reach``). records: records within reach.
            within: more ids known to be within reach (a retrieval's candidates).
        """
        if self.principal is None:
            return list(records)
        named = {i for r in records for f in REFERENCE_FIELDS for i in getattr(r, f)}
        unknown = named - {r.id for r in records} - set(within)
        if not unknown:
            return list(records)
        seen = (named - unknown) | self.visible(store, unknown, node="record")
        if named <= seen:
            return list(records)
        return [r if all(i in seen for f in REFERENCE_FIELDS for i in getattr(r, f))
                else r.model_copy(update={f: tuple(i for i in getattr(r, f) if i in seen)
                                          for f in REFERENCE_FIELDS})
                for r in records]

    def check_retrieval(self, logged: Mapping[str, Any]) -> None:
        """Refuse a logged retrieval (its properties) unless it was made within the
        confinement: its tenant one of the principal's, its clearance at most the
        principal's, its query scope holding every confinement pair.

        Raises:
            OutOfReachError: it was not.
        """
        if self.principal is None:
            return
        try:
            scope = json.loads(str(logged.get("scope_json") or "{}"))
            clearance = Sensitivity(str(logged.get("clearance") or "normal"))
        except ValueError:
            raise out_of_reach("this retrieval id") from None
        if not self.allows(logged.get("tenant"), clearance, scope, change=True):
            raise out_of_reach("this retrieval id")

    def retrieval_shown(self, logged: Mapping[str, Any]) -> dict[str, Any]:
        """A logged retrieval's properties as this client may see them: to a bound client,
        the tenants of the principal that made it (``principal_tenants``) only among its
        own, so a retrieval a wider principal made within its reach names no other tenant."""
        shown = dict(logged)
        if self.principal is not None and isinstance(shown.get("principal_tenants"), list):
            shown["principal_tenants"] = [t for t in shown["principal_tenants"]
                                          if t in self.principal.tenants]
        return shown

    def by_shown(self, by: Any) -> Any:
        """A transition's or decision's ``by`` as this client may see it: to a bound client,
        the tenants a bound writer's claim records (:meth:`decided_by`) only among its own,
        so a wider principal that wrote within its reach names no other tenant."""
        p = self.principal
        if p is None or not isinstance(by, str):
            return by
        return _CLAIM_TENANTS.sub(lambda m: m.group(1) + ",".join(
            t for t in m.group(2).split(",") if t in p.tenants) + m.group(3), by)

    def check_authority(self, authority: Authority | str) -> None:
        """Refuse a claim above :attr:`max_authority`.

        Raises:
            AuthorityCeilingError: the claim is above the ceiling (names the setting).
        """
        if self.max_authority is None:
            return
        claimed = Authority(authority)
        if claimed > self.max_authority:
            raise AuthorityCeilingError(
                f"this caller may claim authority up to {self.max_authority.value!r} (its "
                f"max_authority setting: --max-authority for the MCP server, max_authority= "
                f"for GraphmemStore and Memory.confined); {claimed.value!r} was claimed; "
                "nothing was written")

    def confine_record(self, store: Reader, proposal: MemoryRecord | dict[str, Any]
                       ) -> MemoryRecord | dict[str, Any]:
        """A bound caller's proposal as it may be written: its authority within the ceiling,
        its scope confined (:meth:`Principal.confine`) and within reach to change, the
        records it supersedes changeable and the ones it cites or derives from within reach.
        The operator's proposal is returned as given.

        Raises:
            AuthorityCeilingError: authority above :attr:`max_authority`.
            AuthorizationError: a scope contradicting the confinement, another tenant, a
                sensitivity above the clearance.
            OutOfReachError: a referenced id out of reach (or naming nothing).
            ValidationError: an invalid proposal.
        """
        if self.principal is None and self.max_authority is None:
            return proposal
        record = coerce_record(proposal)
        self.check_authority(record.authority)
        if self.principal is None:
            return record
        scope = self.principal.confine(record.scope)
        if not self.allows(record.tenant, record.sensitivity, scope, change=True):
            raise AuthorizationError("this memory would lie outside the caller's reach "
                                     "(tenant or clearance); nothing was written")
        self.check_ids(store, record.supersedes, change=True, what="supersedes")
        self.check_ids(store, [*record.derived_from, *record.evidence_ids],
                       what="derived_from or evidence_ids")
        return record if scope == record.scope else record.model_copy(update={"scope": scope})

    def decided_by(self, by: str, authority: Authority | str) -> str:
        """``by`` as a bound client's write decision records it: who claimed what authority,
        under which ceiling and confinement (the operator's ``by`` is kept as given)."""
        if self.principal is None:
            return by
        p = self.principal
        where = ",".join(f"{k}={v}" for k, v in p.scope.items()) or "whole tenant"
        ceiling = self.max_authority.value if self.max_authority else "none"
        return (f"{by} [claimed {Authority(authority).value}; max_authority {ceiling}; "
                f"tenants {','.join(sorted(p.tenants))}; scope {where}; clearance "
                f"{p.clearance.value}]")


OPERATOR = Access()
"""The unbound client's access: everything, no ceiling."""

