// Erase DELETE records (docs/spec/deletion.md): every property is replaced by a content-free
// tombstone (id, kind, tenant, scope, sensitivity, times, erasure time, request id, reason),
// conflict edges and the embeddings of a LangGraph item (its LgVector nodes) go, lineage and
// scope edges stay so audits can explain the absence. The times,
// SUPERSEDES edges and `admitted` (not quarantined when erased) keep an erased successor
// superseding its predecessors (docs/spec/status.md#superseded: erasure never reactivates). Records
// this request already disposed of are skipped, and a record erased by an earlier request keeps its
// first tombstone (changed = false): re-applying changes nothing. $rows: {id, root}.
// The batch is worked on as a whole: the records it erases are collected once, and each of
// their Scopes is bumped once (parts/scope_bump_batch: one write of the hot ScopeVersion per
// batch, not per record), each record stamped with a rev of its own.
MATCH (req:DeletionRequest {id: $request_id})
USING INDEX SEEK req:DeletionRequest(id)
UNWIND $rows AS row
MATCH (r:Record {id: row.id})
USING INDEX SEEK r:Record(id)
WHERE NOT EXISTS { (req)-[:DISPOSED]->(r) }
WITH req, r, row.root AS root, coalesce(r.erased, false) AS was_erased
CREATE (req)-[:DISPOSED {disposition: 'DELETE', at: $at, changed: NOT was_erased,
                         root: root}]->(r)
WITH r, was_erased
WITH count(r) AS disposed, collect(CASE WHEN was_erased THEN null ELSE r END) AS fresh
CALL (fresh) {
  UNWIND fresh AS r
  SET r = {id: r.id, kind: r.kind, tenant: r.tenant, scope_json: r.scope_json,
           sensitivity: r.sensitivity, sensitivity_rank: r.sensitivity_rank,
           created_at: r.created_at, valid_from: r.valid_from, expires_at: r.expires_at,
           admitted: NOT coalesce(r.quarantined, false),
           retracted: coalesce(r.retracted, false), quarantined: false,
           pending_recompute: false, erased: true, erased_at: $at,
           erased_by_request: $request_id, erasure_reason: $reason,
           rev: coalesce(r.rev, 0) + 1}
}
CALL (fresh) {
  UNWIND fresh AS r
  MATCH (r)-[c:CONFLICTS_WITH|ASSERTS]-()
  DELETE c
}
CALL (fresh) {
  UNWIND fresh AS r
  MATCH (v:LgVector)-[:EMBEDS]->(r)
  DETACH DELETE v
}
CALL (fresh) {
  UNWIND fresh AS x
  MATCH (x)-[:IN_SCOPE]->(s:Scope)
  WITH s, collect(x) AS members
  CALL (s, members) {
    {{scope_bump_batch}}
  }
}
RETURN disposed, size(fresh) AS changed
