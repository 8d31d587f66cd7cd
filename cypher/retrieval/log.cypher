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
OPTIONAL MATCH (base:CandidateSet {digest: $base_digest})
USING INDEX SEEK base:CandidateSet(digest)
  WHERE base.tenant = $tenant AND size(coalesce(base.base_digests, [])) < $max_depth
    AND (base.ids IS NOT NULL OR base.base_digests IS NOT NULL)
MERGE (cs:CandidateSet {digest: $candidate_digest})
  ON CREATE SET cs.tenant = $tenant, cs.size = $candidate_count, cs.ids = $candidate_ids,
    cs.base_digests = CASE WHEN base IS NULL THEN null
                    ELSE [base.digest] + coalesce(base.base_digests, []) END,
    cs.added_ids = CASE WHEN base IS NULL THEN null ELSE $added_ids END,
    cs.removed_ids = CASE WHEN base IS NULL THEN null ELSE $removed_ids END
CREATE (q:Retrieval {
  id: $id, at: $at, written_at: datetime(), triggered: $triggered, triggers: $triggers,
  query: $query,
  ranker: $ranker, tenant: $tenant, scope_json: $scope_json, principal_tenants: $tenants,
  clearance: $clearance, candidate_digest: $candidate_digest,
  candidate_count: $candidate_count, selected_ids: [], conflict_keys: [],
  budget_chars: $budget_chars
})
// Readable: following each set's own base from cs along `base_digests` reaches a set stored
// whole (candidate_ids reads it so). A set of the chain lost (an evaluation cleanup cut short,
// a crash) or stored again on another base breaks that: the set is then incomplete.
WITH q, cs, [cs.digest] + coalesce(cs.base_digests, []) AS path
WITH q, cs, path, COLLECT {
    MATCH (b:CandidateSet) WHERE b.digest IN path
    RETURN b {.digest, whole: b.ids IS NOT NULL, base: b.base_digests[0]} } AS members
WITH q, cs, path, [d IN path | head([m IN members WHERE m.digest = d])] AS links
WITH q, cs, links, head([i IN range(0, size(path) - 1) WHERE links[i] IS NULL
    OR links[i].whole OR i = size(path) - 1 OR coalesce(links[i].base <> path[i + 1], true)])
  AS stop
RETURN q.id AS id, links[stop] IS NULL OR NOT links[stop].whole AS incomplete,
  size(coalesce(cs.base_digests, [])) AS depth
