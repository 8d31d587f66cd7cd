// Benchmarks only (bench/agent_loop.py): how many candidate ids the attribution log holds for
// tenant $tenant, whole sets and deltas (retrieval/log), how many sets, and how many ids
// they list (what storing every set whole would hold).
MATCH (cs:CandidateSet {tenant: $tenant})
RETURN count(cs) AS sets,
  sum(size(coalesce(cs.ids, [])) + size(coalesce(cs.added_ids, []))
      + size(coalesce(cs.removed_ids, []))) AS stored_ids,
  sum(cs.size) AS listed_ids
