// Erase DELETE records (docs/spec/deletion.md): every property is replaced by a content-free
// tombstone (id, kind, tenant, scope, sensitivity, times, erasure time, request id, reason),
// conflict edges and the embeddings of a LangGraph item (its LgVector nodes) go, lineage and
// scope edges stay so audits can explain the absence. The times,
// SUPERSEDES edges and `admitted` (not quarantined when erased) keep an erased successor
// superseding its predecessors (docs/spec/status.md#superseded: erasure never reactivates).
// The records this statement erases are listed on one ErasureBatch node of the request
// (ids, the roots among them, the time): the disposition of each, without an edge per record.
// A record an earlier request erased keeps its first tombstone and gets a DISPOSED edge
// (changed = false). Records this request already disposed of are skipped (its own tombstones,
// or its DISPOSED edge): re-applying changes nothing. $rows: {id, root}.
// The batch is worked on as a whole: the records it erases are collected once, and each of
// their Scopes is bumped once (parts/scope_bump_batch: one write of the hot ScopeVersion per
// batch, not per record), each record stamped with a rev of its own.
MATCH (req:DeletionRequest {id: $request_id})
USING INDEX SEEK req:DeletionRequest(id)
CALL (req) {
  UNWIND $rows AS row
  MATCH (r:Record {id: row.id})
  USING INDEX SEEK r:Record(id)
  WITH r, row.root AS root, coalesce(r.erased, false) AS was_erased
  WHERE NOT was_erased
     OR (coalesce(r.erased_by_request, '') <> $request_id
         AND NOT EXISTS { (req)-[:DISPOSED]->(r) })
  RETURN collect(CASE WHEN was_erased THEN {r: r, root: root} END) AS earlier,
    collect(CASE WHEN was_erased THEN null ELSE r END) AS fresh,
    collect(CASE WHEN root AND NOT was_erased THEN r.id END) AS fresh_roots
}
CALL (req, earlier) {
  UNWIND earlier AS e
  WITH req, e.r AS r, e.root AS root
  CREATE (req)-[:DISPOSED {disposition: 'DELETE', at: $at, changed: false, root: root}]->(r)
}
CALL (req, fresh, fresh_roots) {
  WITH req, fresh, fresh_roots WHERE size(fresh) > 0
  CREATE (req)-[:ERASED]->(:ErasureBatch {at: $at, ids: [r IN fresh | r.id],
                                          roots: fresh_roots})
}
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
RETURN size(earlier) + size(fresh) AS disposed, size(fresh) AS changed
