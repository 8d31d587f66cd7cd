// Attribution: one Retrieval node per read-path call, linked to what it selected
// (SPEC section 5, step 9); scores and reasons on the SELECTED edges. The candidate set is
// stored once per distinct set, as a CandidateSet keyed by a digest of tenant and ids
// (repeated retrievals over an unchanged scope share it). A set that differs little from
// one this client logged before is stored as a delta of it (issue 15: an agent's loop logs a
// new set after every write): $base_digest names that base, $added_ids / $removed_ids the
// difference, and `base_digests` lists the digests back to a set stored whole (at most
// $max_depth). $candidate_ids is null when the client sends a delta or believes the set is
// stored already; `incomplete` says the set is stored neither whole nor as a delta of a
// stored base (the client then runs candidate_set_fill in the same transaction).
OPTIONAL MATCH (base:CandidateSet {digest: $base_digest})
  WHERE base.tenant = $tenant AND size(coalesce(base.base_digests, [])) < $max_depth
    AND (base.ids IS NOT NULL OR base.base_digests IS NOT NULL)
MERGE (cs:CandidateSet {digest: $candidate_digest})
  ON CREATE SET cs.tenant = $tenant, cs.size = $candidate_count, cs.ids = $candidate_ids,
    cs.base_digests = CASE WHEN base IS NULL THEN null
                    ELSE [base.digest] + coalesce(base.base_digests, []) END,
    cs.added_ids = CASE WHEN base IS NULL THEN null ELSE $added_ids END,
    cs.removed_ids = CASE WHEN base IS NULL THEN null ELSE $removed_ids END
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
RETURN q.id AS id, cs.ids IS NULL AND cs.base_digests IS NULL AS incomplete,
  size(coalesce(cs.base_digests, [])) AS depth
