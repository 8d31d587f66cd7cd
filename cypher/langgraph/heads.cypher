// LangGraph store: the latest version of each (namespace, key). Versions share an id
// prefix (a hash of tenant, namespace and key) and end in a zero-padded sequence number,
// so the greatest id is the newest version; the id's range index serves the prefix.
// live: that version is eligible and ACTIVE at $now for the writer in its own namespace
// scope (parts/record_active), so get would return it.
// visible: the version is within the writer's clearance (one above it is never replaced or
// retracted by this writer).
// $prefixes: id prefixes; $clearance: sensitivity rank; $now: UTC datetime.
UNWIND $prefixes AS prefix
CALL (prefix) {
  MATCH (r:Record)
  WHERE r.id STARTS WITH prefix
  RETURN r ORDER BY r.id DESC LIMIT 1
}
MATCH (r)-[:IN_SCOPE]->(s:Scope)
WITH prefix, r, s.tenant AS q_tenant, s.pairs AS q_pairs, $now AS now
RETURN prefix, r.id AS id, r.metadata_json AS metadata_json,
       coalesce(r.retracted, false) OR coalesce(r.erased, false) AS ended,
       {{record_active}} AS live,
       r.sensitivity_rank <= $clearance AS visible
