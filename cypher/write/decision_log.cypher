// Keep every write decision and its reason (docs/spec/write-path.md), also for discarded proposals.
// The tenant lets a deletion request find decisions that have no record to hang off
// (docs/spec/deletion.md); the proposal's scope pairs and sensitivity rank let `explain` answer
// for a discarded proposal only to a caller who would reach it as a record
// (docs/spec/eligibility.md#confinement). $token: the writing call's own id when the decision is
// that of the record it stored (a threaded record, stored by records/create), by which a run of
// the call again after its commit's acknowledgement was lost knows its record; else null.
// A statement of the agent loop: planned once, kept (graphmem.db.catalogue, "Plans").
CYPHER replan=skip
CREATE (w:WriteDecision {
  record_id: $record_id, tenant: $tenant, disposition: $disposition, reason: $reason,
  at: $at, by: $by, pairs: $pairs, sensitivity_rank: $sensitivity_rank, token: $token
})
WITH w
OPTIONAL MATCH (r:Record {id: $record_id})
USING INDEX SEEK r:Record(id)
FOREACH (_ IN CASE WHEN r IS NULL THEN [] ELSE [1] END | CREATE (w)-[:DECIDED]->(r))
RETURN count(w) AS logged
