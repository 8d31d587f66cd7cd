// LangGraph store: the namespaces (Scope pairs) under a prefix that hold at least one
// eligible ACTIVE record for the caller, as LangGraph's PostgresStore lists namespaces
// that still hold rows. Same parameters and record conditions as langgraph/items.cypher.
UNWIND $search_tenants AS tenant
MATCH (s:Scope {tenant: tenant})
USING INDEX SEEK s:Scope(tenant)
WHERE tenant IN $tenants AND all(p IN $pairs WHERE p IN s.pairs)
  AND EXISTS {
    MATCH (s)<-[:IN_SCOPE]-(r:Record)
    WHERE r.sensitivity_rank <= $clearance
      AND {{record_live}}
      AND NOT EXISTS {
        MATCH (r)<-[:SUPERSEDES]-(succ:Record)-[:IN_SCOPE]->(ss:Scope {tenant: tenant})
        WHERE all(p IN ss.pairs WHERE p IN s.pairs)
          AND succ.sensitivity_rank <= $clearance
          AND {{successor_effective}}
      }
  }
RETURN s.pairs AS pairs
