// Part of queries, not a query: `{{retrieval_store}}` is the clauses that store one retrieval's
// Retrieval node `q` (with nothing selected) and its CandidateSet `cs`, read from the map `e`
// (retrieval/log.cypher's parameters: retrieval/log makes `e` of its parameters, and
// retrieval/log_batch is each row of its batch), and bind `links` and `stop` (`e` is kept): the set's chain
// of deltas and where following it stops (`incomplete` and `depth` are read from them). See
// retrieval/log.cypher for what is stored and why.
OPTIONAL MATCH (base:CandidateSet {digest: e.base_digest})
USING INDEX SEEK base:CandidateSet(digest)
  WHERE base.tenant = e.tenant AND size(coalesce(base.base_digests, [])) < e.max_depth
    AND (base.ids IS NOT NULL OR base.base_digests IS NOT NULL)
MERGE (cs:CandidateSet {digest: e.candidate_digest})
  ON CREATE SET cs.tenant = e.tenant, cs.size = e.candidate_count, cs.ids = e.candidate_ids,
    cs.base_digests = CASE WHEN base IS NULL THEN null
                    ELSE [base.digest] + coalesce(base.base_digests, []) END,
    cs.added_ids = CASE WHEN base IS NULL THEN null ELSE e.added_ids END,
    cs.removed_ids = CASE WHEN base IS NULL THEN null ELSE e.removed_ids END
CREATE (q:Retrieval {
  id: e.id, at: e.at, written_at: datetime(), triggered: e.triggered, triggers: e.triggers,
  query: e.query,
  ranker: e.ranker, tenant: e.tenant, scope_json: e.scope_json, principal_tenants: e.tenants,
  clearance: e.clearance, candidate_digest: e.candidate_digest,
  candidate_count: e.candidate_count, selected_ids: [], conflict_keys: [],
  budget_chars: e.budget_chars
})
// Readable: following each set's own base from cs along `base_digests` reaches a set stored
// whole (candidate_ids reads it so). A set of the chain lost (an evaluation cleanup cut short,
// a crash) or stored again on another base breaks that: the set is then incomplete.
WITH e, q, cs, [cs.digest] + coalesce(cs.base_digests, []) AS path
WITH e, q, cs, path, COLLECT {
    MATCH (b:CandidateSet) WHERE b.digest IN path
    RETURN b {.digest, whole: b.ids IS NOT NULL, base: b.base_digests[0]} } AS members
WITH e, q, cs, path, [d IN path | head([m IN members WHERE m.digest = d])] AS links
WITH e, q, cs, links, head([i IN range(0, size(path) - 1) WHERE links[i] IS NULL
    OR links[i].whole OR i = size(path) - 1 OR coalesce(links[i].base <> path[i + 1], true)])
  AS stop
