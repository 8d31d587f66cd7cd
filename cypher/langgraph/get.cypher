// LangGraph store: the eligible ACTIVE version of each (namespace, key), if any.
// The record conditions are SPEC sections 3-4 as in candidates.cypher, with the record's
// own namespace scope as the query scope, and also created_at <= $now for the record and
// its successors (section 4: a memory created after $now did not exist yet): the shared
// parts record_live and successor_effective (cypher/parts/) state both.
// $gets: [{i, prefix, key}] (key: the namespace Scope's key); $tenants: the principal's
// tenants; $clearance: sensitivity rank; $now: UTC datetime.
UNWIND $gets AS g
MATCH (r:Record)-[:IN_SCOPE]->(s:Scope {key: g.key})
WHERE r.id STARTS WITH g.prefix
  AND s.tenant IN $tenants
  AND r.sensitivity_rank <= $clearance
  AND {{record_live}}
  AND NOT EXISTS {
    MATCH (r)<-[:SUPERSEDES]-(succ:Record)-[:IN_SCOPE]->(ss:Scope {tenant: s.tenant})
    WHERE all(p IN ss.pairs WHERE p IN s.pairs)
      AND succ.sensitivity_rank <= $clearance
      AND {{successor_effective}}
  }
RETURN g.i AS i, r {.*} AS record
