// Pending intentions whose cue equals one of the event's (kind, value) pairs exactly
// (SPEC section 8), found through the intention_cue index (tenant, trigger_kind,
// trigger_value) and then held to the eligibility rules of records (SPEC section 3): tenant
// readable by the caller, sensitivity within clearance, scope pairs a subset of the query's.
// $cues: [{kind, value}]; other parameters as in candidates.cypher.
UNWIND $cues AS cue
MATCH (i:Intention {tenant: $tenant, trigger_kind: cue.kind, trigger_value: cue.value})
USING INDEX SEEK i:Intention(tenant, trigger_kind, trigger_value)
WHERE $tenant IN $tenants
  AND i.status = 'pending' AND NOT coalesce(i.erased, false)
  AND i.sensitivity_rank <= $clearance
  AND (i.expires_at IS NULL OR $now < i.expires_at)
MATCH (i)-[:IN_SCOPE]->(s:Scope)
WHERE all(p IN s.pairs WHERE p IN $pairs)
WITH DISTINCT i
RETURN i {.*} AS intention
ORDER BY i.created_at, i.id
