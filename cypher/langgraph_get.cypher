// LangGraph store: the eligible ACTIVE version of each (namespace, key), if any.
// The record conditions are SPEC sections 3-4 as in candidates.cypher, with the record's
// own namespace scope as the query scope, and also created_at <= $now for the record and
// its successors (section 4: a memory created after $now did not exist yet): keep the
// files in step.
// $gets: [{i, prefix, key}] (key: the namespace Scope's key); $tenants: the principal's
// tenants; $clearance: sensitivity rank; $now: UTC datetime.
UNWIND $gets AS g
MATCH (r:Record)-[:IN_SCOPE]->(s:Scope {key: g.key})
WHERE r.id STARTS WITH g.prefix
  AND s.tenant IN $tenants
  AND r.sensitivity_rank <= $clearance
  AND NOT r.quarantined AND NOT r.pending_recompute AND NOT r.erased
  AND NOT r.retracted
  AND r.created_at <= $now
  AND (r.valid_from IS NULL OR r.valid_from <= $now)
  AND (r.expires_at IS NULL OR $now < r.expires_at)
  AND NOT EXISTS {
    MATCH (r)<-[:SUPERSEDES]-(succ:Record)-[:IN_SCOPE]->(ss:Scope {tenant: s.tenant})
    WHERE all(p IN ss.pairs WHERE p IN s.pairs)
      AND succ.sensitivity_rank <= $clearance
      AND NOT succ.quarantined AND (NOT succ.erased OR coalesce(succ.admitted, false))
      AND succ.created_at <= $now
      AND (succ.valid_from IS NULL OR succ.valid_from <= $now)
  }
RETURN g.i AS i, r {.*} AS record
