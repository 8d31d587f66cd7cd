// A logged retrieval, its candidate set and selected records (score, reason, rank). The
// set comes whole or as a delta of the sets in its `base_digests` (retrieval/log), which are read
// with it; retrievals logged before candidate sets were shared carry their ids on the node.
MATCH (q:Retrieval {id: $id})
USING INDEX SEEK q:Retrieval(id)
OPTIONAL MATCH (cs:CandidateSet {digest: q.candidate_digest})
USING INDEX SEEK cs:CandidateSet(digest)
RETURN q {.*} AS retrieval,
  cs {.digest, .ids, .base_digests, .added_ids, .removed_ids} AS candidate_set,
  COLLECT { MATCH (b:CandidateSet) WHERE b.digest IN coalesce(cs.base_digests, [])
            RETURN b {.digest, .ids, .base_digests, .added_ids, .removed_ids} } AS chain,
  [(q)-[s:SELECTED]->(r:Record) | {id: r.id, score: s.score, reason: s.reason, rank: s.rank}]
    AS selected
