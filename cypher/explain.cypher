// The status of one record for a caller at $now: the first of SPEC section 4's list that
// applies, after authorization and scope (section 3). Same parameters as candidates.cypher.
MATCH (r:Record {id: $id})-[:IN_SCOPE]->(s:Scope)
WITH r, s,
  [(r)<-[:SUPERSEDES]-(succ:Record)-[:IN_SCOPE]->(ss:Scope {tenant: $tenant})
     WHERE all(p IN ss.pairs WHERE p IN $pairs)
       AND succ.sensitivity_rank <= $clearance
       AND NOT succ.quarantined AND NOT succ.pending_recompute AND NOT succ.erased
       AND (succ.valid_from IS NULL OR succ.valid_from <= $now)
     | succ.id] AS successors
RETURN r.id AS id,
  CASE
    WHEN NOT (r.tenant IN $tenants) OR r.sensitivity_rank > $clearance THEN 'UNAUTHORIZED'
    WHEN NOT (s.tenant = $tenant AND all(p IN s.pairs WHERE p IN $pairs)) THEN 'OUT_OF_SCOPE'
    WHEN r.quarantined THEN 'QUARANTINED'
    WHEN r.pending_recompute THEN 'PENDING_RECOMPUTE'
    WHEN r.erased THEN 'ERASED'
    WHEN r.retracted THEN 'RETRACTED'
    WHEN r.valid_from IS NOT NULL AND $now < r.valid_from THEN 'NOT_YET_VALID'
    WHEN r.expires_at IS NOT NULL AND $now >= r.expires_at THEN 'EXPIRED'
    WHEN size(successors) > 0 THEN 'SUPERSEDED'
    ELSE 'ACTIVE'
  END AS status,
  successors
