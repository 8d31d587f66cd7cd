// Descendants of record $id over DERIVED_FROM, SUPERSEDES and EVIDENCED_BY (what was derived
// from it, replaced it or cites it), with the shortest distance. See lineage/up.cypher.
MATCH (r:Record {id: $id})
USING INDEX SEEK r:Record(id)
MATCH p = (r)<-[:DERIVED_FROM|SUPERSEDES|EVIDENCED_BY*]-(n:Record)
WITH n, min(length(p)) AS depth
WHERE $depth IS NULL OR depth <= $depth
RETURN n.id AS id, depth
