// LangGraph store: the eligible ACTIVE version of each (namespace, key), if any.
// The record conditions are docs/spec/eligibility.md#eligible-and-active as in candidates.cypher
// (parts/record_active), with the record's own namespace scope as the query scope.
// $gets: [{i, prefix, key}] (key: the namespace Scope's key); $tenants: the principal's
// tenants; $clearance: sensitivity rank; $now: UTC datetime.
UNWIND $gets AS g
MATCH (r:Record)-[:IN_SCOPE]->(s:Scope {key: g.key})
WHERE r.id STARTS WITH g.prefix
  AND s.tenant IN $tenants
WITH g, r, s.tenant AS q_tenant, s.pairs AS q_pairs, $now AS now
WHERE {{record_active}}
RETURN g.i AS i, r.metadata_json AS metadata_json, r.created_at AS created_at,
       r.lg_chain_seq AS lg_chain_seq, r.lg_created_at AS lg_created_at,
       r.id AS id, r.lg_ttl AS lg_ttl
