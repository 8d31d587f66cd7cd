// Part of queries, not a query: `{{visible_scopes}}` matches each Scope `s` whose records may be
// eligible for the caller in the query scope by rules 1 and 3 (docs/spec/eligibility.md#tenant,
// #scope-match): of the query's $tenant, one the caller's $tenants hold, with every pair of the
// Scope among the query's $pairs. Rule 2 (clearance) is the record's, left to the query.
MATCH (s:Scope {tenant: $tenant})
USING INDEX SEEK s:Scope(tenant)
WHERE $tenant IN $tenants AND all(p IN s.pairs WHERE p IN $pairs)
