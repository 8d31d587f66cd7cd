// LangGraph store: the latest version of each (namespace, key). Versions share an id
// prefix (a hash of tenant, namespace and key) and end in a zero-padded sequence number,
// so the greatest id is the newest version; the id's range index serves the prefix.
// Returns whether that version is live at $now (what get would return, SPEC sections 3-4
// for the writer's own namespace scope, which the newest version's successors cannot be).
// visible: the version is within the writer's clearance (one above it is never replaced or
// retracted by this writer).
// $prefixes: id prefixes; $clearance: sensitivity rank; $now: UTC datetime.
UNWIND $prefixes AS prefix
CALL (prefix) {
  MATCH (r:Record)
  WHERE r.id STARTS WITH prefix
  RETURN r ORDER BY r.id DESC LIMIT 1
}
RETURN prefix, r.id AS id, r.metadata_json AS metadata_json,
       coalesce(r.retracted, false) OR coalesce(r.erased, false) AS ended,
       r.sensitivity_rank <= $clearance AND {{record_live}} AS live,
       r.sensitivity_rank <= $clearance AS visible
