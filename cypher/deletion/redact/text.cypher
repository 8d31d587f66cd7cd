// Write back the redacted text found by deletion/tenant_text (docs/spec/deletion.md). $rows: {eid,
// rel, props}: a node's or relationship's element id and its redacted properties (client-side, with
// the same pattern as record content). A changed node or relationship is stamped with the time and
// the request; a changed Record also gets a new rev and bumps its Scope, so cached candidates do
// not serve the old text.
UNWIND $rows AS row
CALL (row) {
  WITH row WHERE NOT row.rel
  MATCH (n) WHERE elementId(n) = row.eid AND NOT n:Record
  SET n += row.props, n.redacted_at = $at, n.redacted_by_request = $request_id
}
CALL (row) {
  WITH row WHERE NOT row.rel
  MATCH (r:Record) WHERE elementId(r) = row.eid
  SET r += row.props, r.redacted_at = $at, r.redacted_by_request = $request_id,
      r.rev = coalesce(r.rev, 0) + 1
  WITH r
  {{scope_bump}}
}
CALL (row) {
  WITH row WHERE row.rel
  MATCH ()-[e]->() WHERE elementId(e) = row.eid
  SET e += row.props, e.redacted_at = $at, e.redacted_by_request = $request_id
}
RETURN count(row) AS redacted
