// Part of queries, not a query: `{{record_active}}` stands for "record `r` is eligible and ACTIVE
// for this caller at `now`" (docs/spec/eligibility.md#eligible-and-active; docs/status.md), given
// that the query reached `r` through a Scope the caller may read in the query scope (rules 1 and 3,
// the query's): its sensitivity is within $clearance, it is live (parts/record_live) and no
// successor the caller may see supersedes it (parts/successor_visible, which reads the query scope
// from `q_tenant` and `q_pairs`, bound by the query). The query binds the instant as `now`
// (`$now AS now`), with `q_tenant` and `q_pairs`.
// The successors are read from `r` and their Scopes from each successor (a list, so no index
// can start the pattern): whatever the statistics, the check costs `r`'s few edges. Written
// as one pattern ending in `ss:Scope`, its tenant seekable, the planner could instead read
// every record of the query scope's Scopes and join them with `r`'s successors, and did,
// planned on the statistics of an empty store: a LangGraph page then read its whole namespace
// (tests/integration/langgraph/test_search_cost.py).
r.sensitivity_rank <= $clearance
AND {{record_live}}
AND NOT EXISTS {
  MATCH (r)<-[:SUPERSEDES]-(succ:Record)
  WHERE any(ss IN [(succ)-[:IN_SCOPE]->(scope:Scope) | scope] WHERE {{successor_visible}})
}
