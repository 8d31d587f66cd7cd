// Part of queries, not a query: `{{langgraph_namespace}}` stands for "the Scope `s` is a LangGraph
// namespace under the search's prefix, in one of the caller's $tenants": it holds every pair of
// $pairs (the prefix's labels, without the tenant's: a prefix is the set of pairs its namespaces'
// Scopes contain, so ("a",) never matches ("ab",)) and has a langgraph_key (only the store writes
// one). Used by langgraph/search and langgraph/vectors/*; the tenant's own order is the query's.
s.tenant IN $tenants AND all(p IN $pairs WHERE p IN s.pairs) AND s.langgraph_key IS NOT NULL
