// How many records a caller can see in its scope (docs/spec/eligibility.md: the visible Scopes and
// the clearance, as candidates.cypher), not erased: all of them, the quarantined, the retracted,
// and the eligible ACTIVE ones (parts/record_active). One row.
// $tenant, $tenants, $pairs, $clearance, $now as for candidates.cypher.
{{visible_scopes}}
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
  WITH r, $tenant AS q_tenant, $pairs AS q_pairs, $now AS now
  WHERE {{record_active}}
  RETURN count(r) AS eligible
}
RETURN records, quarantined, retracted, eligible
