// The logged retrievals of $tenants made at one of $clearances, with what decides whether
// they lie within a deletion's reach (graphmem.deletion.reach.retrieval_within decides on
// the query scope): the retrievals a confined deletion's redaction and verification scan.
MATCH (q:Retrieval)
WHERE q.tenant IN $tenants AND coalesce(q.clearance, 'normal') IN $clearances
RETURN q.id AS id, q.tenant AS tenant, q.clearance AS clearance, q.scope_json AS scope_json
ORDER BY id
