// LangGraph store: every version of one (namespace, key), oldest first (ids share the
// prefix and end in a zero-padded sequence number).
MATCH (r:Record)
WHERE r.id STARTS WITH $prefix
RETURN r.id AS id ORDER BY r.id
