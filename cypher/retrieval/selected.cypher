// What a retrieval logged by retrieval/log (in the same transaction) selected: its ids and
// conflict keys, and a SELECTED edge to each selected record, with its score, reason and rank
// (docs/spec/read-path.md#attribution).
// A statement of the agent loop: planned once, kept (graphmem.db.catalogue, "Plans").
CYPHER replan=skip
MATCH (q:Retrieval {id: $id})
USING INDEX SEEK q:Retrieval(id)
SET q.selected_ids = $selected_ids, q.conflict_keys = $conflict_keys
WITH q
CALL (q) {
  UNWIND $selected AS s
  MATCH (r:Record {id: s.id})
  USING INDEX SEEK r:Record(id)
  CREATE (q)-[:SELECTED {score: s.score, reason: s.reason, rank: s.rank}]->(r)
}
RETURN q.id AS id
