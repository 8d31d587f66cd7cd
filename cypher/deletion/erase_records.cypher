// Erase DELETE records (docs/spec/deletion.md): every property is replaced by a content-free
// tombstone (id, kind, tenant, scope, sensitivity, times, erasure time, request id, reason),
// conflict edges and the embeddings of a LangGraph item (its LgVector nodes) go, lineage and
// scope edges stay so audits can explain the absence. The times,
// SUPERSEDES edges and `admitted` (not quarantined when erased) keep an erased successor
// superseding its predecessors (docs/spec/status.md#superseded: erasure never reactivates). Records
// this request already disposed of are skipped, and a record erased by an earlier request keeps its
// first tombstone (changed = false): re-applying changes nothing. $rows: {id, root}.
MATCH (req:DeletionRequest {id: $request_id})
USING INDEX SEEK req:DeletionRequest(id)
UNWIND $rows AS row
MATCH (r:Record {id: row.id})
USING INDEX SEEK r:Record(id)
WHERE NOT EXISTS { (req)-[:DISPOSED]->(r) }
WITH req, r, row.root AS root, coalesce(r.erased, false) AS was_erased
CALL (r, was_erased) {
  WITH r WHERE NOT was_erased
  SET r = {id: r.id, kind: r.kind, tenant: r.tenant, scope_json: r.scope_json,
           sensitivity: r.sensitivity, sensitivity_rank: r.sensitivity_rank,
           created_at: r.created_at, valid_from: r.valid_from, expires_at: r.expires_at,
           admitted: NOT coalesce(r.quarantined, false),
           retracted: coalesce(r.retracted, false), quarantined: false,
           pending_recompute: false, erased: true, erased_at: $at,
           erased_by_request: $request_id, erasure_reason: $reason,
           rev: coalesce(r.rev, 0) + 1}
}
CALL (r, was_erased) {
  WITH r WHERE NOT was_erased
  MATCH (r)-[c:CONFLICTS_WITH|ASSERTS]-()
  DELETE c
}
CALL (r, was_erased) {
  WITH r WHERE NOT was_erased
  MATCH (v:LgVector)-[:EMBEDS]->(r)
  DETACH DELETE v
}
CALL (r, was_erased) {
  WITH r WHERE NOT was_erased
  {{scope_bump}}
}
CREATE (req)-[:DISPOSED {disposition: 'DELETE', at: $at, changed: NOT was_erased,
                         root: root}]->(r)
RETURN count(r) AS disposed, sum(CASE WHEN was_erased THEN 0 ELSE 1 END) AS changed
