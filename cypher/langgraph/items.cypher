// LangGraph store: eligible ACTIVE records in every namespace that starts with a prefix
// (the namespace itself and every deeper one). A namespace's Scope holds the pairs
// ["tenant", t], ["langgraph", "namespace"] and ["langgraph.<i>", label i]; a prefix is the
// set of pairs its Scope must contain, so ("a",) never matches ("ab",).
// The record conditions are docs/spec/eligibility.md#eligible-and-active as in candidates.cypher
// (parts/record_active), with the record's own namespace scope as the query scope.
// $search_tenants: tenants to search (each one of $tenants, checked by the caller and
// again here); $pairs: JSON-encoded [key, value] pairs, without the tenant's;
// $tenants: the principal's tenants; $clearance: sensitivity rank; $now: UTC datetime.
UNWIND $search_tenants AS tenant
MATCH (s:Scope {tenant: tenant})
USING INDEX SEEK s:Scope(tenant)
WHERE tenant IN $tenants AND all(p IN $pairs WHERE p IN s.pairs)
MATCH (s)<-[:IN_SCOPE]-(r:Record)
WITH s, r, s.tenant AS q_tenant, s.pairs AS q_pairs, $now AS now
WHERE {{record_active}}
RETURN coalesce(s.langgraph_seq, 0) AS ns_seq, r {.*} AS record
