// Keep every write decision and its reason (docs/spec/write-path.md), also for discarded proposals.
// The tenant lets a deletion request find decisions that have no record to hang off
// (docs/spec/deletion.md).
// A statement of the agent loop: planned once, kept (graphmem.db.catalogue, "Plans").
CYPHER replan=skip
CREATE (w:WriteDecision {
  record_id: $record_id, tenant: $tenant, disposition: $disposition, reason: $reason,
  at: $at, by: $by
})
WITH w
OPTIONAL MATCH (r:Record {id: $record_id})
USING INDEX SEEK r:Record(id)
FOREACH (_ IN CASE WHEN r IS NULL THEN [] ELSE [1] END | CREATE (w)-[:DECIDED]->(r))
RETURN count(w) AS logged
