// Cancel and erase DELETE intentions: the action text and cue value go, a tombstone stays
// (status 'cancelled', erased, erasure time, request id, reason). Idempotent like records.
MATCH (req:DeletionRequest {id: $request_id})
USING INDEX SEEK req:DeletionRequest(id)
UNWIND $rows AS row
MATCH (i:Intention {id: row.id})
USING INDEX SEEK i:Intention(id)
WHERE NOT EXISTS { (req)-[:DISPOSED]->(i) }
WITH req, i, row.root AS root, coalesce(i.erased, false) AS was_erased
CALL (i, was_erased) {
  WITH i WHERE NOT was_erased
  SET i = {id: i.id, tenant: i.tenant, scope_json: i.scope_json,
           sensitivity: i.sensitivity, sensitivity_rank: i.sensitivity_rank,
           trigger_kind: i.trigger_kind, status: 'cancelled', erased: true,
           erased_at: $at, erased_by_request: $request_id, erasure_reason: $reason}
}
CREATE (req)-[:DISPOSED {disposition: 'DELETE', at: $at, changed: NOT was_erased,
                         root: root}]->(i)
RETURN count(i) AS disposed, sum(CASE WHEN was_erased THEN 0 ELSE 1 END) AS changed
