// Retraction is a tombstone, never a delete: the record stays with who, why and when.
// A statement of the agent loop: planned once, kept (graphmem.db.catalogue, "Plans").
CYPHER replan=skip
MATCH (r:Record {id: $id})
USING INDEX SEEK r:Record(id)
WHERE NOT r.erased
SET r.retracted = true, r.retracted_by = $by, r.retracted_reason = $reason, r.retracted_at = $at, r.rev = coalesce(r.rev, 0) + 1
WITH r
CALL (r) {
  {{scope_bump}}
}
RETURN r.id AS id
