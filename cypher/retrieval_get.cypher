// A logged retrieval with its candidate ids (from its CandidateSet; retrievals logged before
// candidate sets were shared carry them on the node) and selected records (score, reason,
// rank).
MATCH (q:Retrieval {id: $id})
OPTIONAL MATCH (cs:CandidateSet {digest: q.candidate_digest})
RETURN q {.*, candidate_ids: coalesce(q.candidate_ids, cs.ids, [])} AS retrieval,
  [(q)-[s:SELECTED]->(r:Record) | {id: r.id, score: s.score, reason: s.reason, rank: s.rank}]
    AS selected
