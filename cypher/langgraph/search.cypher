// LangGraph store: one page of a search, decided here. The items of every namespace under a
// prefix (the namespace itself and every deeper one), eligible and ACTIVE for the caller
// (parts/record_active, with the record's own namespace scope as the query scope:
// docs/spec/eligibility.md#eligible-and-active), that pass every value condition, ordered as
// LangGraph's InMemoryStore orders them (tenants in $search_tenants order, namespaces by
// their first write, keys by their first put since their last delete), then $offset and
// $limit. A namespace's Scope holds the pairs ["tenant", t], ["langgraph", "namespace"] and
// ["langgraph.<i>", label i]; a prefix is the set of pairs its Scope must contain, so ("a",)
// never matches ("ab",). Each namespace's items are read through the range index of
// r.lg_order (the Scope's langgraph_key, the key's first sequence number, the version's),
// in order, and at most $window of them are kept per namespace: a page reads about what it
// returns, not what the namespace holds. Only this store writes r.lg_order, each item's
// starting with its own Scope's digest: the items found are the Scope's.
// $conditions: the value conditions (parts/langgraph_conditions).
// $search_tenants: tenants to search (each one of $tenants, checked by the caller and again
// here); $pairs: JSON-encoded [key, value] pairs, without the tenant's; $tenants: the
// principal's tenants; $clearance: sensitivity rank; $now: UTC datetime; $window: the most
// items kept per namespace ($offset + $limit); $full: return each record's properties too.
UNWIND range(0, size($search_tenants) - 1) AS t
WITH t, $search_tenants[t] AS tenant
MATCH (s:Scope {tenant: tenant})
USING INDEX SEEK s:Scope(tenant)
WHERE {{langgraph_namespace}}
CALL (s) {
  MATCH (r:Record)
  USING INDEX r:Record(lg_order)
  WHERE r.lg_order STARTS WITH s.langgraph_key
  {{langgraph_item}}
  RETURN r ORDER BY r.lg_order LIMIT $window
}
WITH t, s, r ORDER BY t, s.langgraph_seq, r.lg_order
SKIP $offset LIMIT $limit
RETURN r.metadata_json AS metadata_json, r.created_at AS created_at,
       r.lg_chain_seq AS lg_chain_seq, r.lg_created_at AS lg_created_at,
       r.id AS id, r.lg_ttl AS lg_ttl,
       CASE WHEN $full THEN r {.*, lg_facts: null, lg_num_paths: null, lg_nums: null} END AS record
