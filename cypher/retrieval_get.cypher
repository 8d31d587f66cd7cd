// A logged retrieval with its selected records (score, reason, rank).
MATCH (q:Retrieval {id: $id})
RETURN q {.*} AS retrieval,
  [(q)-[s:SELECTED]->(r:Record) | {id: r.id, score: s.score, reason: s.reason, rank: s.rank}]
    AS selected
