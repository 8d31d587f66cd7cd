// Attribution: one Retrieval node per read-path call, linked to what it selected
// (SPEC section 5, step 9); scores and reasons on the SELECTED edges. The candidate set is
// stored once per distinct set, as a CandidateSet keyed by a digest of tenant and ids
// (repeated retrievals over an unchanged scope share it). $candidate_ids is null when the
// client believes the set is stored already; `incomplete` says it was not (the client then
// runs candidate_set_fill in the same transaction).
MERGE (cs:CandidateSet {digest: $candidate_digest})
  ON CREATE SET cs.tenant = $tenant, cs.ids = $candidate_ids, cs.size = $candidate_count
CREATE (q:Retrieval {
  id: $id, at: $at, triggered: $triggered, triggers: $triggers, query: $query,
  ranker: $ranker, tenant: $tenant, scope_json: $scope_json, principal_tenants: $tenants,
  clearance: $clearance, candidate_digest: $candidate_digest,
  candidate_count: $candidate_count, selected_ids: $selected_ids,
  conflict_keys: $conflict_keys, budget_chars: $budget_chars
})
WITH q, cs
CALL (q) {
  UNWIND $selected AS s
  MATCH (r:Record {id: s.id})
  CREATE (q)-[:SELECTED {score: s.score, reason: s.reason, rank: s.rank}]->(r)
}
RETURN q.id AS id, cs.ids IS NULL AS incomplete
