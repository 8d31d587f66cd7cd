"""Typed inputs and outputs of the MCP tools: clients get a JSON schema and
structured content from them.

Enumerated inputs (kind, authority) are advertised as enums in the schema but checked by
graphmem itself, so a bad value comes back with graphmem's message. Times are ISO 8601
strings with a timezone (``...+00:00`` or ``...Z``); a naive time is refused by graphmem.
No ``mcp`` import here.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from graphmem.models import Authority, MemoryKind

__all__ = [
    "AWARE_TIME",
    "AuthorityStr",
    "ConflictOut",
    "ExplainOut",
    "FiredIntention",
    "GetOut",
    "HistoryOut",
    "IntendOut",
    "KindStr",
    "LineageOut",
    "MemoryOut",
    "PlanDeletionOut",
    "ProcessEventOut",
    "Proposal",
    "RecallOut",
    "RecalledMemory",
    "RecentOut",
    "RecordUseOut",
    "RetractOut",
    "StatusOut",
    "TransitionOut",
    "WriteDecisionOut",
]

AWARE_TIME = "ISO 8601 time with a timezone, e.g. 2026-05-01T09:00:00+00:00"

KindStr = Annotated[str, Field(
    description="Memory kind: semantic (a fact), episodic (what happened), procedural "
                "(how to do something) or prospective.",
    json_schema_extra={"enum": [k.value for k in MemoryKind]})]
AuthorityStr = Annotated[str, Field(
    description="How far the memory can be trusted, lowest first.",
    json_schema_extra={"enum": [a.value for a in Authority]})]


class Proposal(BaseModel):
    """A memory the agent proposes to store; the write policy decides (docs/spec/write-path.md)."""

    model_config = ConfigDict(extra="forbid")

    content: str = Field(description="The memory itself, as text.")
    kind: KindStr = MemoryKind.SEMANTIC.value
    scope: dict[str, str] | None = Field(
        default=None, description="Keys added to the server's default scope (e.g. "
                                  "{'project': 'p1'}); fixed keys cannot be changed.")
    provenance: dict[str, str] | None = Field(
        default=None, description="Where it comes from, e.g. {'source': 'user'}.")
    authority: AuthorityStr = Authority.MODEL_INFERRED.value
    asserts: str | None = Field(
        default=None, description="The key this memory asserts a value for (e.g. "
                                  "'customer.plan'); two values for one key are a conflict.")
    asserted_value: str | None = Field(default=None,
                                       description="The value asserted for `asserts`.")
    valid_from: datetime | None = Field(default=None, description=f"When it starts to hold; "
                                                                  f"{AWARE_TIME}.")
    expires_at: datetime | None = Field(default=None,
                                        description=f"When it stops holding; {AWARE_TIME}.")
    supersedes: list[str] = Field(default_factory=list,
                                  description="Ids of memories this one replaces.")
    derived_from: list[str] = Field(default_factory=list,
                                    description="Ids of memories this one was derived from.")
    evidence_ids: list[str] = Field(default_factory=list,
                                    description="Ids of memories that support this one.")


class WriteDecisionOut(BaseModel):
    """The write policy's decision on a proposal."""

    id: str = Field(description="The id of the proposed memory.")
    disposition: str = Field(description="PERSIST, QUARANTINE (kept for review, never "
                                         "retrieved) or DISCARD.")
    reason: str


class RecalledMemory(BaseModel):
    """One memory the read path chose."""

    id: str
    kind: str
    score: float
    source: str = Field(description="provenance.source, or 'unknown'.")
    authority: str
    created_at: datetime


class ConflictOut(BaseModel):
    """Eligible memories asserting different values for one key (all kept, none dropped)."""

    key: str
    record_ids: list[str]
    values: list[str]


class RecallOut(BaseModel):
    """What the read path returned, and why."""

    retrieved: bool = Field(description="False when no trigger fired (see note).")
    retrieval_id: str = Field(description="Pass to record_use to close the attribution loop.")
    rendered: str = Field(description="The memories as context for the model.")
    memories: list[RecalledMemory]
    conflicts: list[ConflictOut]
    triggers: list[str]
    note: str = ""


class ExplainOut(BaseModel):
    """Why a memory is or is not retrievable for this server's principal now."""

    id: str
    status: str = Field(description="ACTIVE, or why not: UNAUTHORIZED, OUT_OF_SCOPE, "
                                     "QUARANTINED, PENDING_RECOMPUTE, ERASED, RETRACTED, "
                                     "NOT_YET_VALID, EXPIRED, SUPERSEDED; DISCARDED: the write "
                                     "policy discarded the proposal (reason says why).")
    reason: str
    successors: list[str] = Field(description="For SUPERSEDED: the effective successors.")


class TransitionOut(BaseModel):
    """One declared transition or write decision of a memory."""

    kind: str
    by: str | None = None
    reason: str | None = None
    at: datetime | None = None


class HistoryOut(BaseModel):
    """A memory's transitions, oldest first."""

    id: str
    transitions: list[TransitionOut]


class RetractOut(BaseModel):
    """A retraction, with the memory's status afterwards."""

    id: str
    status: str
    reason: str


class LineageOut(BaseModel):
    """A memory's lineage (derived_from, supersedes, evidenced_by edges)."""

    root: str
    direction: str
    depth: int | None
    mermaid: str = Field(description="A Mermaid flowchart of the lineage.")
    graph: dict[str, Any] = Field(description="networkx node-link JSON (nodes, edges); "
                                              "memories out of this server's reach are left "
                                              "out.")


class IntendOut(BaseModel):
    """A stored deferred intention."""

    id: str
    created: bool


class FiredIntention(BaseModel):
    """An intention an event fired (each fires exactly once)."""

    id: str
    action: str
    cue_kind: str
    cue_value: str


class ProcessEventOut(BaseModel):
    """The intentions this event fired now (an intention already fired is not repeated)."""

    fired: list[FiredIntention]


class RecordUseOut(BaseModel):
    """An attribution entry: an action used these retrieved memories."""

    retrieval_id: str
    action_id: str
    memory_ids: list[str]
    helped: bool | None


class PlanDeletionOut(BaseModel):
    """A deletion plan to review; apply it with apply_deletion(digest)."""

    digest: str
    request_id: str
    counts: dict[str, int]
    matches_nothing: bool = Field(
        default=False, description="True when the subject or roots matched no memory: "
                                   "usually a typo; applying the plan deletes nothing.")
    plan: dict[str, Any] = Field(
        description="The plan to review, as `graphmem delete plan -o` writes it: each entry "
                    "with its id, disposition and reason. Give it back to apply_deletion to "
                    "have it checked unedited.")


class MemoryOut(BaseModel):
    """A memory as the ``get`` and ``recent`` tools return it."""

    id: str
    kind: str
    content: str
    scope: dict[str, str]
    source: str
    authority: str
    sensitivity: str
    created_at: datetime
    asserts: str | None = None
    asserted_value: str | None = None
    valid_from: datetime | None = None
    expires_at: datetime | None = None


class GetOut(BaseModel):
    """``get``: the memory, and whether it is retrievable now (as ``explain`` says)."""

    memory: MemoryOut
    status: str
    reason: str


class RecentOut(BaseModel):
    """``recent``: one page of the newest eligible memories."""

    memories: list[MemoryOut]
    offset: int
    limit: int
    next_offset: int | None = Field(
        description="The offset of the next page, or null when this page was the last.")


class StatusOut(BaseModel):
    """``status``: the server and its database, as this caller sees them."""

    version: str
    reachable: bool
    error: str | None = None
    scope: dict[str, str]
    counts: dict[str, int] | None = Field(
        default=None, description="Records in reach: records, eligible, quarantined, "
                                  "retracted (null when the database is unreachable).")
    deletion_tools: bool
