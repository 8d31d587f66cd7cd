// Records and intentions of $tenants that are not erased and may hold a redaction term in
// their content, asserted key and value, thread, provenance or metadata (intentions: their
// action), with those texts: $pattern narrows them without ever dropping one that holds a
// term (graphmem.deletion.redaction.narrowing); the client's matcher decides.
// A full scan of the tenants' records: planning only.
CALL () {
  MATCH (r:Record)
  WHERE r.tenant IN $tenants AND NOT coalesce(r.erased, false)
  WITH r, [coalesce(r.content, ''), coalesce(r.asserted_value, ''),
           coalesce(r.provenance_json, ''), coalesce(r.metadata_json, ''),
           coalesce(r.asserts, ''), coalesce(r.thread, '')] AS texts
  WHERE any(s IN texts WHERE s =~ $pattern)
  RETURN r.id AS id, 'record' AS node, r.kind AS kind, r.tenant AS tenant, texts
  UNION ALL
  MATCH (i:Intention)
  WHERE i.tenant IN $tenants AND NOT coalesce(i.erased, false)
  WITH i, [coalesce(i.action, '')] AS texts
  WHERE any(s IN texts WHERE s =~ $pattern)
  RETURN i.id AS id, 'intention' AS node, null AS kind, i.tenant AS tenant, texts
}
RETURN id, node, kind, tenant, texts
ORDER BY id
