// Part of queries, not a query: `{{record_active}}` stands for "record `r` is eligible and ACTIVE
// for this caller at `now`" (docs/spec/eligibility.md#eligible-and-active; docs/status.md), given
// that the query reached `r` through a Scope the caller may read in the query scope (rules 1 and 3,
// the query's): its sensitivity is within $clearance, it is live (parts/record_live) and no
// successor the caller may see supersedes it (parts/successor_visible, which reads the query scope
// from `q_tenant` and `q_pairs`, bound by the query). The query binds the instant as `now`
// (`$now AS now`), with `q_tenant` and `q_pairs`.
r.sensitivity_rank <= $clearance
AND {{record_live}}
AND NOT EXISTS {
  MATCH (r)<-[:SUPERSEDES]-(succ:Record)-[:IN_SCOPE]->(ss:Scope)
  WHERE {{successor_visible}}
}
