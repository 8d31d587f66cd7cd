// LangGraph store: the namespaces (Scope pairs) under a prefix that hold at least one
// eligible ACTIVE record for the caller, as LangGraph's PostgresStore lists namespaces
// that still hold rows. Same parameters and record conditions as langgraph/items.cypher.
UNWIND $search_tenants AS tenant
MATCH (s:Scope {tenant: tenant})
USING INDEX SEEK s:Scope(tenant)
WHERE tenant IN $tenants AND all(p IN $pairs WHERE p IN s.pairs)
WITH s, s.tenant AS q_tenant, s.pairs AS q_pairs, $now AS now
WHERE EXISTS { MATCH (s)<-[:IN_SCOPE]-(r:Record) WHERE {{record_active}} }
RETURN s.pairs AS pairs
