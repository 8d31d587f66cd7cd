// Part of queries, not a query: `{{langgraph_item}}` keeps, of the LangGraph items `r` of
// namespace `s` (the query finds them: r.lg_order starts with the Scope's langgraph_key), those
// the search returns: eligible and ACTIVE for the caller with the namespace's own scope as the
// query scope (parts/record_active, docs/spec/eligibility.md#eligible-and-active) and passing
// every value condition (parts/langgraph_conditions). Carries `s` and `r` on.
WITH s, r, s.tenant AS q_tenant, s.pairs AS q_pairs, $now AS now
WHERE {{langgraph_conditions}} AND {{record_active}}
