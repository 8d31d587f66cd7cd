// How many records a caller can see in its scope (SPEC section 3: the visible Scopes and the
// clearance, as candidates.cypher), not erased: all of them, the quarantined, the retracted,
// and the eligible ACTIVE ones (parts/record_live, parts/successor_effective). One row.
// $tenant, $tenants, $pairs, $clearance, $now as for candidates.cypher.
MATCH (s:Scope {tenant: $tenant})
USING INDEX SEEK s:Scope(tenant)
WHERE $tenant IN $tenants AND all(p IN s.pairs WHERE p IN $pairs)
WITH collect(s) AS scopes
CALL (scopes) {
  UNWIND scopes AS s
  MATCH (s)<-[:IN_SCOPE]-(r:Record)
  WHERE r.sensitivity_rank <= $clearance AND NOT r.erased
  RETURN count(r) AS records,
         count(CASE WHEN r.quarantined THEN 1 END) AS quarantined,
         count(CASE WHEN r.retracted THEN 1 END) AS retracted
}
CALL (scopes) {
  UNWIND scopes AS s
  MATCH (s)<-[:IN_SCOPE]-(r:Record)
  WHERE r.sensitivity_rank <= $clearance
    AND {{record_live}}
    AND NOT EXISTS {
      MATCH (r)<-[:SUPERSEDES]-(succ:Record)-[:IN_SCOPE]->(ss:Scope)
      WHERE ss IN scopes
        AND succ.sensitivity_rank <= $clearance
        AND {{successor_effective}}
    }
  RETURN count(r) AS eligible
}
RETURN records, quarantined, retracted, eligible
