// LangGraph store: eligible ACTIVE records in every namespace that starts with a prefix
// (the namespace itself and every deeper one). A namespace's Scope holds the pairs
// ["tenant", t], ["langgraph", "namespace"] and ["langgraph.<i>", label i]; a prefix is the
// set of pairs its Scope must contain, so ("a",) never matches ("ab",).
// The record conditions are SPEC sections 3-4 as in candidates.cypher, with the record's
// own namespace scope as the query scope, and also created_at <= $now for the record and
// its successors (section 4: a memory created after $now did not exist yet): keep the
// files in step.
// $search_tenants: tenants to search (each one of $tenants, checked by the caller and
// again here); $pairs: JSON-encoded [key, value] pairs, without the tenant's;
// $tenants: the principal's tenants; $clearance: sensitivity rank; $now: UTC datetime.
UNWIND $search_tenants AS tenant
MATCH (s:Scope {tenant: tenant})
WHERE tenant IN $tenants AND all(p IN $pairs WHERE p IN s.pairs)
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
RETURN coalesce(s.langgraph_seq, 0) AS ns_seq, r {.*} AS record
