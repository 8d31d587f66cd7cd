// How many records a caller can see in its scope, by the flags a record carries (docs/ui.md;
// docs/spec/eligibility.md: the visible Scopes and the clearance, as candidates.cypher), not
// erased: all of them, the quarantined, the pending recompute and the retracted. One pass of
// property reads, no status: how many are eligible is the candidates answer's
// (Neo4jStore.candidate_list, reused while provably the same). One row.
// $tenant, $tenants, $pairs, $clearance as for candidates.cypher.
{{visible_scopes}}
WITH collect(s) AS scopes
UNWIND scopes AS s
MATCH (s)<-[:IN_SCOPE]-(r:Record)
WHERE r.sensitivity_rank <= $clearance AND NOT r.erased
RETURN count(r) AS records,
       count(CASE WHEN r.quarantined THEN 1 END) AS quarantined,
       count(CASE WHEN r.pending_recompute THEN 1 END) AS pending_recompute,
       count(CASE WHEN r.retracted THEN 1 END) AS retracted
