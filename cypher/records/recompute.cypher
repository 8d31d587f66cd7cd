// Return a RECOMPUTE record to service (docs/spec/deletion.md): new content and fingerprints, fresh
// lineage (DERIVED_FROM and EVIDENCED_BY edges replaced by $derived_from / $evidence_ids) and
// no legacy CONFLICTS_WITH edges (its ASSERTS group keeps its key). Only a record pending recompute is changed.
MATCH (r:Record {id: $id})
USING INDEX SEEK r:Record(id)
WHERE coalesce(r.pending_recompute, false) AND NOT coalesce(r.erased, false)
SET r.content = $content, r.asserted_value = $asserted_value,
    r.provenance_json = $provenance_json, r.source = $source,
    r.fingerprint = $fingerprint, r.dedup_key = $dedup_key,
    r.derived_from = $derived_from, r.evidence_ids = $evidence_ids,
    r.pending_recompute = false, r.recomputed_at = $at, r.recomputed_by = $by,
    r.rev = coalesce(r.rev, 0) + 1
WITH r
CALL (r) {
  MATCH (r)-[e:DERIVED_FROM|EVIDENCED_BY|CONFLICTS_WITH]-(other)
  WHERE type(e) = 'CONFLICTS_WITH' OR startNode(e) = r
  DELETE e
}
CALL (r) {
  UNWIND range(0, size($derived_from) - 1) AS i
  MATCH (parent:Record {id: $derived_from[i]})
  USING INDEX SEEK parent:Record(id)
  CREATE (r)-[:DERIVED_FROM {ord: i}]->(parent)
}
CALL (r) {
  UNWIND $evidence_ids AS ev_id
  MATCH (ev:Record {id: ev_id})
  USING INDEX SEEK ev:Record(id)
  CREATE (r)-[:EVIDENCED_BY]->(ev)
}
WITH r
CALL (r) {
  {{scope_bump}}
}
RETURN r.id AS id
