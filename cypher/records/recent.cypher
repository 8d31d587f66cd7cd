// The newest eligible ACTIVE records for a caller, one page of them
// (docs/spec/eligibility.md#eligible-and-active): the eligibility of candidates.cypher (scope rule
// 3 over the visible Scopes, then parts/record_active), newest first (created_at, then id),
// $skip records skipped, at most $limit returned. $tenant, $tenants, $pairs, $clearance,
// $now as for candidates.cypher.
{{visible_scopes}}
WITH collect(s) AS scopes
UNWIND scopes AS s
MATCH (s)<-[:IN_SCOPE]-(r:Record)
WITH r, $tenant AS q_tenant, $pairs AS q_pairs, $now AS now
WHERE {{record_active}}
WITH r
ORDER BY r.created_at DESC, r.id DESC
SKIP $skip
LIMIT $limit
RETURN r {.*} AS record
