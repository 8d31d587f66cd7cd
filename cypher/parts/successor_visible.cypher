// Part of queries, not a query: `{{successor_visible}}` stands for "successor `succ`, in its
// Scope `ss`, supersedes for this caller at `now`" (docs/spec/status.md#superseded; docs/status.md):
// it passes eligibility rules 1-3 for the query scope (its Scope's tenant is the query
// scope's and its pairs are within the query scope's; its sensitivity within $clearance),
// and it was admitted and is effective at `now` (parts/successor_effective). The query binds
// the query scope as `q_tenant` (its tenant) and `q_pairs` (its JSON-encoded pairs): the
// caller's scope for candidates and explain, the record's own namespace for LangGraph, and the
// instant as `now` (`$now AS now`).
ss.tenant = q_tenant AND all(p IN ss.pairs WHERE p IN q_pairs)
AND succ.sensitivity_rank <= $clearance
AND {{successor_effective}}
