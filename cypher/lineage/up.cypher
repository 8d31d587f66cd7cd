// Ancestors of record $id over DERIVED_FROM, SUPERSEDES and EVIDENCED_BY (what it was derived
// from, replaced and cites), with the shortest distance. A pruning BFS (distinct horizon on
// min(length(p))); the depth limit is applied after it because a bound cannot be a parameter.
MATCH (r:Record {id: $id})
USING INDEX SEEK r:Record(id)
MATCH p = (r)-[:DERIVED_FROM|SUPERSEDES|EVIDENCED_BY*]->(n:Record)
WITH n, min(length(p)) AS depth
WHERE $depth IS NULL OR depth <= $depth
RETURN n.id AS id, depth
