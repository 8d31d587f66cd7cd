// Verification of a deletion request (docs/spec/deletion.md): how many nodes it disposed of, and
// the ids that break its promises. A DELETE node must be an erased, content-free tombstone (no
// content, asserted value, provenance, metadata, action or cue value); a RECOMPUTE record must stay
// ineligible until it is recomputed; an erased intention must be cancelled.
// QUARANTINE records promoted since are reported, not failed (an explicit review may do that).
// A node is disposed of by a DISPOSED edge, or, a record the request erased itself, by its id on
// one of the request's ErasureBatch nodes (an id whose record is gone counts for nothing).
MATCH (req:DeletionRequest {id: $id})
USING INDEX SEEK req:DeletionRequest(id)
CALL (req) {
  OPTIONAL MATCH (req)-[x:DISPOSED]->(n)
  RETURN count(x) AS linked,
    collect(CASE WHEN x.disposition = 'DELETE' AND (
        NOT coalesce(n.erased, false) OR n.content IS NOT NULL OR n.asserted_value IS NOT NULL
        OR n.provenance_json IS NOT NULL OR n.metadata_json IS NOT NULL
        OR n.action IS NOT NULL OR n.trigger_value IS NOT NULL) THEN n.id END)
      AS linked_with_content,
    collect(CASE WHEN x.disposition = 'DELETE' AND n:Intention AND n.status <> 'cancelled'
      THEN n.id END) AS intentions_not_cancelled,
    collect(CASE WHEN x.disposition = 'RECOMPUTE' AND NOT coalesce(n.pending_recompute, false)
        AND n.recomputed_at IS NULL THEN n.id END) AS recompute_not_pending,
    collect(CASE WHEN x.disposition = 'QUARANTINE' AND NOT coalesce(n.quarantined, false)
      THEN n.id END) AS quarantine_released
}
CALL (req) {
  MATCH (req)-[:ERASED]->(b:ErasureBatch)
  UNWIND b.ids AS rid
  MATCH (n:Record {id: rid})
  USING INDEX SEEK n:Record(id)
  RETURN count(n) AS erased,
    collect(CASE WHEN NOT coalesce(n.erased, false) OR n.content IS NOT NULL
        OR n.asserted_value IS NOT NULL OR n.provenance_json IS NOT NULL
        OR n.metadata_json IS NOT NULL THEN n.id END) AS erased_with_content
}
RETURN req {.*} AS request, linked + erased AS disposed,
  linked_with_content + erased_with_content AS deleted_with_content,
  intentions_not_cancelled, recompute_not_pending, quarantine_released
