// LangGraph store: the namespaces (Scope pairs) under a prefix that hold at least one
// eligible ACTIVE record for the caller, as LangGraph's PostgresStore lists namespaces
// that still hold rows. Same parameters and record conditions as langgraph_items.cypher.
UNWIND $search_tenants AS tenant
MATCH (s:Scope {tenant: tenant})
WHERE tenant IN $tenants AND all(p IN $pairs WHERE p IN s.pairs)
  AND EXISTS {
    MATCH (s)<-[:IN_SCOPE]-(r:Record)
    WHERE r.sensitivity_rank <= $clearance
      AND NOT r.quarantined AND NOT r.pending_recompute AND NOT r.erased
      AND NOT r.retracted
      AND r.created_at <= $now
      AND (r.valid_from IS NULL OR r.valid_from <= $now)
      AND (r.expires_at IS NULL OR $now < r.expires_at)
      AND NOT EXISTS {
        MATCH (r)<-[:SUPERSEDES]-(succ:Record)-[:IN_SCOPE]->(ss:Scope {tenant: tenant})
        WHERE all(p IN ss.pairs WHERE p IN s.pairs)
          AND succ.sensitivity_rank <= $clearance
          AND NOT succ.quarantined AND (NOT succ.erased OR coalesce(succ.admitted, false))
          AND succ.created_at <= $now
          AND (succ.valid_from IS NULL OR succ.valid_from <= $now)
      }
  }
RETURN s.pairs AS pairs
