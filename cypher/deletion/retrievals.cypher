// Logged retrievals of $tenants whose query text may hold a redaction term: $pattern narrows
// them without ever dropping one that does (graphmem.deletion.redaction.narrowing); the
// client's matcher decides. (Retrievals that selected a walked record come from the walk.)
MATCH (q:Retrieval)
WHERE q.tenant IN $tenants AND coalesce(q.query, '') =~ $pattern
RETURN q.id AS id, q.query AS query
ORDER BY id
