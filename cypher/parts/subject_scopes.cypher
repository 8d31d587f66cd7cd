// Part of queries, not a query: `{{subject_scopes}}` matches each Scope `s` of $tenant that holds
// every pair of a deletion subject's $subject_pairs (docs/spec/deletion.md): its records and
// intentions are the subject's.
MATCH (s:Scope {tenant: $tenant})
USING INDEX SEEK s:Scope(tenant)
WHERE all(p IN $subject_pairs WHERE p IN s.pairs)
