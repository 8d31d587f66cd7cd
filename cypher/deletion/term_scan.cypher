// Records and intentions of $tenants that are not erased and may hold a redaction term in
// their content, asserted key and value, thread, provenance or metadata (intentions: their
// action and their cue's kind and value), with those texts: $pattern narrows them without ever dropping one that holds a
// term (graphmem.deletion.redaction.narrowing); the client's matcher decides.
// A full scan of the tenants' records: planning only.
// $reach: null (every record and intention of the tenants), or a deletion's reach
// ({pairs, max_rank}: graphmem.deletion.reach.text_reach): only those at most max_rank whose
// Scope holds every pair (the ones its principal may change).
CALL () {
  MATCH (r:Record)
  WHERE r.tenant IN $tenants AND NOT coalesce(r.erased, false)
    AND ($reach IS NULL OR (coalesce(r.sensitivity_rank, $reach.max_rank + 1) <= $reach.max_rank
         AND EXISTS { (r)-[:IN_SCOPE]->(s:Scope) WHERE all(p IN $reach.pairs WHERE p IN s.pairs) }))
  WITH r, [coalesce(r.content, ''), coalesce(r.asserted_value, ''),
           coalesce(r.provenance_json, ''), coalesce(r.metadata_json, ''),
           coalesce(r.asserts, ''), coalesce(r.thread, '')] AS texts
  WHERE any(s IN texts WHERE s =~ $pattern)
  RETURN r.id AS id, 'record' AS node, r.kind AS kind, r.tenant AS tenant, texts
  UNION ALL
  MATCH (i:Intention)
  WHERE i.tenant IN $tenants AND NOT coalesce(i.erased, false)
    AND ($reach IS NULL OR (coalesce(i.sensitivity_rank, $reach.max_rank + 1) <= $reach.max_rank
         AND EXISTS { (i)-[:IN_SCOPE]->(s:Scope) WHERE all(p IN $reach.pairs WHERE p IN s.pairs) }))
  WITH i, [coalesce(i.action, ''), coalesce(i.trigger_kind, ''),
           coalesce(i.trigger_value, '')] AS texts
  WHERE any(s IN texts WHERE s =~ $pattern)
  RETURN i.id AS id, 'intention' AS node, null AS kind, i.tenant AS tenant, texts
}
RETURN id, node, kind, tenant, texts
ORDER BY id
