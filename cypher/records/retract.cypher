// Retraction is a tombstone, never a delete: the record stays with who, why and when.
// A record retracted already keeps its tombstone (`changed` false: nothing is logged), so a
// retract repeated (a retry, a second worker) is the one made first (docs/spec/write-path.md).
// A statement of the agent loop: planned once, kept (graphmem.db.catalogue, "Plans").
CYPHER replan=skip
MATCH (r:Record {id: $id})
USING INDEX SEEK r:Record(id)
WHERE NOT r.erased
WITH r, coalesce(r.retracted, false) AS already
CALL (r, already) {
  WITH r
  WHERE NOT already
  SET r.retracted = true, r.retracted_by = $by, r.retracted_reason = $reason, r.retracted_at = $at, r.rev = coalesce(r.rev, 0) + 1
  WITH r
  CALL (r) {
    {{scope_bump}}
  }
}
RETURN r.id AS id, NOT already AS changed
