// Erase DELETE records (SPEC section 7): every property is replaced by a content-free
// tombstone (id, kind, tenant, scope, sensitivity, erasure time, request id, reason), conflict
// edges go, lineage and scope edges stay so audits can explain the absence. Records this
// request already disposed of are skipped, and a record erased by an earlier request keeps its
// first tombstone (changed = false): re-applying changes nothing. $rows: {id, root}.
MATCH (req:DeletionRequest {id: $request_id})
UNWIND $rows AS row
MATCH (r:Record {id: row.id})
WHERE NOT EXISTS { (req)-[:DISPOSED]->(r) }
WITH req, r, row.root AS root, coalesce(r.erased, false) AS was_erased
CALL (r, was_erased) {
  WITH r WHERE NOT was_erased
  SET r = {id: r.id, kind: r.kind, tenant: r.tenant, scope_json: r.scope_json,
           sensitivity: r.sensitivity, sensitivity_rank: r.sensitivity_rank,
           retracted: coalesce(r.retracted, false), quarantined: false,
           pending_recompute: false, erased: true, erased_at: $at,
           erased_by_request: $request_id, erasure_reason: $reason,
           rev: coalesce(r.rev, 0) + 1}
}
CALL (r, was_erased) {
  WITH r WHERE NOT was_erased
  MATCH (r)-[c:CONFLICTS_WITH]-()
  DELETE c
}
CALL (r, was_erased) {
  WITH r WHERE NOT was_erased
  MATCH (r)-[:IN_SCOPE]->(s:Scope)
  SET s.rev = coalesce(s.rev, 0) + 1
}
CREATE (req)-[:DISPOSED {disposition: 'DELETE', at: $at, changed: NOT was_erased,
                         root: root}]->(r)
RETURN count(r) AS disposed, sum(CASE WHEN was_erased THEN 0 ELSE 1 END) AS changed
