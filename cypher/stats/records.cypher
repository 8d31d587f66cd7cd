// Records by tenant, kind and lifecycle status at $now: SPEC section 4's order without a
// caller (no authorization or scope step), so every record counts once. Rule 2: a record
// created after $now, or valid only from later, is NOT_YET_VALID. Rule 4, as in
// candidates.cypher and explain.cypher (keep them in step): a record is SUPERSEDED when a
// successor that was admitted (never quarantined) is effective at $now (created and valid
// by then), whatever happened to it since (retraction, expiry, pending recompute, erasure).
// $tenant: one tenant, or null for every tenant.
MATCH (r:Record)
WHERE $tenant IS NULL OR r.tenant = $tenant
WITH r,
  CASE
    WHEN r.quarantined THEN 'QUARANTINED'
    WHEN r.pending_recompute THEN 'PENDING_RECOMPUTE'
    WHEN r.erased THEN 'ERASED'
    WHEN r.retracted THEN 'RETRACTED'
    WHEN $now < r.created_at OR (r.valid_from IS NOT NULL AND $now < r.valid_from)
      THEN 'NOT_YET_VALID'
    WHEN r.expires_at IS NOT NULL AND $now >= r.expires_at THEN 'EXPIRED'
    WHEN EXISTS {
      MATCH (r)<-[:SUPERSEDES]-(succ:Record)
      WHERE {{successor_effective}}
    } THEN 'SUPERSEDED'
    ELSE 'ACTIVE'
  END AS status
RETURN r.tenant AS tenant, r.kind AS kind, status, count(*) AS n
ORDER BY tenant, kind, status
