// Attribution: one Retrieval node per read-path call, linked to what it selected
// (SPEC section 5, step 9). Candidate ids are kept as a list; scores and reasons on edges.
CREATE (q:Retrieval {
  id: $id, at: $at, triggered: $triggered, triggers: $triggers, query: $query,
  ranker: $ranker, tenant: $tenant, scope_json: $scope_json, principal_tenants: $tenants,
  clearance: $clearance, candidate_ids: $candidate_ids, selected_ids: $selected_ids,
  conflict_keys: $conflict_keys, budget_chars: $budget_chars
})
WITH q
CALL (q) {
  UNWIND $selected AS s
  MATCH (r:Record {id: s.id})
  CREATE (q)-[:SELECTED {score: s.score, reason: s.reason, rank: s.rank}]->(r)
}
RETURN q.id AS id
