// Eligible and ACTIVE records for a caller, exactly (SPEC sections 3-4).
// $tenant: the query scope's tenant; $tenants: the principal's tenants; $pairs: the query
// scope as JSON-encoded [key, value] pairs; $clearance: sensitivity rank; $now: UTC datetime.
// Returns versions (fingerprint, rev), not records: the client rebuilds only records it has
// not cached at that version (every query that changes a record bumps r.rev).
MATCH (s:Scope {tenant: $tenant})
WHERE $tenant IN $tenants AND all(p IN s.pairs WHERE p IN $pairs)
MATCH (s)<-[:IN_SCOPE]-(r:Record)
WHERE r.sensitivity_rank <= $clearance
  AND NOT r.quarantined AND NOT r.pending_recompute AND NOT r.erased
  AND NOT r.retracted
  AND (r.valid_from IS NULL OR r.valid_from <= $now)
  AND (r.expires_at IS NULL OR $now < r.expires_at)
  AND NOT EXISTS {
    MATCH (r)<-[:SUPERSEDES]-(succ:Record)-[:IN_SCOPE]->(ss:Scope {tenant: $tenant})
    WHERE all(p IN ss.pairs WHERE p IN $pairs)
      AND succ.sensitivity_rank <= $clearance
      AND NOT succ.quarantined AND NOT succ.pending_recompute AND NOT succ.erased
      AND (succ.valid_from IS NULL OR succ.valid_from <= $now)
  }
RETURN r.id AS id, r.fingerprint AS fingerprint, coalesce(r.rev, 0) AS rev,
  [(r)-[:CONFLICTS_WITH]-(o:Record) | o.id] AS conflict_ids
