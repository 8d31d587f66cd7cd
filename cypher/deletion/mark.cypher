// Mark the records and intentions of a batch that are not erased (docs/spec/deletion.md) and link
// each to the request with its disposition: RECOMPUTE makes a record ineligible until it is
// recomputed, QUARANTINE holds it for review, REDACT was done by deletion/redact/*.
// $rows: {id, disposition}. Nodes this request already disposed of are skipped; tombstones
// of earlier requests get the edge but no flag. The Scopes of the changed nodes are bumped
// once per batch, each node stamped with a rev of its own (parts/scope_bump_batch).
MATCH (req:DeletionRequest {id: $request_id})
USING INDEX SEEK req:DeletionRequest(id)
UNWIND $rows AS row
OPTIONAL MATCH (r:Record {id: row.id})
USING INDEX SEEK r:Record(id)
OPTIONAL MATCH (i:Intention {id: row.id})
USING INDEX SEEK i:Intention(id)
WITH req, row, coalesce(r, i) AS n
WHERE n IS NOT NULL AND NOT EXISTS { (req)-[:DISPOSED]->(n) }
WITH req, n, row, coalesce(n.erased, false) AS tombstone
WITH req, n, row, tombstone,
  CASE
    WHEN tombstone THEN false
    WHEN row.disposition = 'RECOMPUTE' THEN NOT coalesce(n.pending_recompute, false)
    WHEN row.disposition = 'QUARANTINE' THEN NOT coalesce(n.quarantined, false)
    ELSE coalesce(n.redacted_by_request = $request_id, false)
  END AS changed
SET n.pending_recompute = CASE WHEN row.disposition = 'RECOMPUTE' AND NOT tombstone THEN true
                               ELSE n.pending_recompute END,
    n.quarantined = CASE WHEN row.disposition = 'QUARANTINE' AND NOT tombstone THEN true
                         ELSE n.quarantined END,
    n.rev = CASE WHEN changed THEN coalesce(n.rev, 0) + 1 ELSE n.rev END
CREATE (req)-[:DISPOSED {disposition: row.disposition, at: $at, changed: changed}]->(n)
WITH count(n) AS disposed, collect(CASE WHEN changed THEN n END) AS touched
CALL (touched) {
  UNWIND touched AS x
  MATCH (x)-[:IN_SCOPE]->(s:Scope)
  WITH s, collect(x) AS members
  CALL (s, members) {
    {{scope_bump_batch}}
  }
}
RETURN disposed, size(touched) AS changed
