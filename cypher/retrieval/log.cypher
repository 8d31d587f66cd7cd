// Attribution: one Retrieval node per read-path call (docs/spec/read-path.md#attribution), created
// with nothing selected; retrieval/selected, in the same transaction, links it to what it selected
// (scores and reasons on the SELECTED edges), once ranking has chosen (the read path runs this
// while it ranks). The candidate set is stored once per distinct set, as a CandidateSet keyed by a
// digest of tenant and ids (repeated retrievals over an unchanged scope share it). A set that
// differs little from one this client logged before is stored as a delta of it (an agent's loop
// logs a new set after every write): $base_digest names that base, $added_ids / $removed_ids the
// difference, and `base_digests` lists the digests back to a set stored whole (at most
// $max_depth). $candidate_ids is null when the client sends a delta or believes the set is
// stored already; `incomplete` says the set cannot be read back: stored neither whole nor as a
// delta of a readable base (the client then runs candidate_set_fill in the same transaction).
// `at` is the caller's `now` (an as-of read sets it in the past); `written_at` the server's
// clock at the write (a deletion's verification compares that).
// A statement of the agent loop: planned once, kept (graphmem.db.catalogue, "Plans").
CYPHER replan=skip
WITH {id: $id, at: $at, triggered: $triggered, triggers: $triggers, query: $query,
      ranker: $ranker, tenant: $tenant, scope_json: $scope_json, tenants: $tenants,
      clearance: $clearance, candidate_digest: $candidate_digest,
      candidate_count: $candidate_count, candidate_ids: $candidate_ids,
      base_digest: $base_digest, added_ids: $added_ids, removed_ids: $removed_ids,
      max_depth: $max_depth, budget_chars: $budget_chars} AS e
{{retrieval_store}}
RETURN q.id AS id, links[stop] IS NULL OR NOT links[stop].whole AS incomplete,
  size(coalesce(cs.base_digests, [])) AS depth
