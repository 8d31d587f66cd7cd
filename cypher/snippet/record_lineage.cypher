// Neo4j Browser / Bloom snippet: a record's lineage as a graph to look at.
// Set the parameter first, e.g.   :param id => 'fact-retry-bug'
// Shows every ancestor and descendant over DERIVED_FROM (child -> parent), SUPERSEDES
// (successor -> predecessor) and EVIDENCED_BY (citer -> evidence), each once, and the edges
// between them. Erased records appear as content-free tombstones (erased = true).
MATCH (r:Record {id: $id})
USING INDEX SEEK r:Record(id)
CALL (r) {
  MATCH (r)-[:DERIVED_FROM|SUPERSEDES|EVIDENCED_BY*]->(n:Record)
  RETURN DISTINCT n
  UNION
  MATCH (r)<-[:DERIVED_FROM|SUPERSEDES|EVIDENCED_BY*]-(n:Record)
  RETURN DISTINCT n
  UNION
  RETURN r AS n
}
WITH collect(n) AS nodes
UNWIND nodes AS a
MATCH (a)-[e:DERIVED_FROM|SUPERSEDES|EVIDENCED_BY]->(b:Record)
WHERE b IN nodes
RETURN a, e, b
