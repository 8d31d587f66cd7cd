// Verification of a deletion request (docs/spec/deletion.md), and the report's entries, in one
// read: how many nodes it disposed of, the ids that break its promises, and every node it
// disposed of. A DELETE node must be an erased, content-free tombstone (no content, asserted
// value, provenance, metadata, action or cue value); a RECOMPUTE record must stay ineligible
// until it is recomputed; an erased intention must be cancelled. QUARANTINE records promoted
// since are reported, not failed (an explicit review may do that).
// A node is disposed of by the request's DISPOSED edge to it. The entries are parallel lists
// ordered by id (a row per node decodes slowly for large requests): id, label, kind ('' for
// intentions), disposition, when (an ISO string: the driver's DateTime hydration is slow in
// bulk), whether the apply changed it (false when an earlier request or run had already done
// so), whether it was a root of the request and whether it was late (not in the plan: written
// after planning, redacted by the apply's last scan: deletion/redact/late).
MATCH (req:DeletionRequest {id: $id})
USING INDEX SEEK req:DeletionRequest(id)
OPTIONAL CALL (req) {
  MATCH (req)-[x:DISPOSED]->(n)
  RETURN n, x.disposition AS disposition, x.at AS at, coalesce(x.changed, false) AS changed,
    coalesce(x.root, false) AS root, coalesce(x.late, false) AS late
}
WITH req, n, disposition, at, changed, root, late
ORDER BY n.id
RETURN req {.*} AS request,
  count(n) AS disposed,
  collect(CASE WHEN disposition = 'DELETE' AND (
      NOT coalesce(n.erased, false) OR n.content IS NOT NULL OR n.asserted_value IS NOT NULL
      OR n.provenance_json IS NOT NULL OR n.metadata_json IS NOT NULL
      OR n.action IS NOT NULL OR n.trigger_value IS NOT NULL) THEN n.id END)
    AS deleted_with_content,
  collect(CASE WHEN disposition = 'DELETE' AND n:Intention AND n.status <> 'cancelled'
    THEN n.id END) AS intentions_not_cancelled,
  collect(CASE WHEN disposition = 'RECOMPUTE' AND NOT coalesce(n.pending_recompute, false)
      AND n.recomputed_at IS NULL THEN n.id END) AS recompute_not_pending,
  collect(CASE WHEN disposition = 'QUARANTINE' AND NOT coalesce(n.quarantined, false)
    THEN n.id END) AS quarantine_released,
  collect(n.id) AS ids,
  collect(CASE WHEN n:Record THEN 'record' WHEN n IS NOT NULL THEN 'intention' END) AS nodes,
  collect(CASE WHEN n IS NOT NULL THEN coalesce(n.kind, '') END) AS kinds,
  collect(CASE WHEN n IS NOT NULL THEN disposition END) AS dispositions,
  collect(CASE WHEN n IS NOT NULL THEN toString(at) END) AS ats,
  collect(CASE WHEN n IS NOT NULL THEN changed END) AS changed,
  collect(CASE WHEN n IS NOT NULL THEN root END) AS roots,
  collect(CASE WHEN n IS NOT NULL THEN late END) AS lates
