// Which exposed memories an action used, and whether that helped (true/false/null = unmeasured).
MATCH (q:Retrieval {id: $retrieval_id})
USING INDEX SEEK q:Retrieval(id)
CREATE (u:Use {retrieval_id: $retrieval_id, action_id: $action_id, at: $at,
               written_at: datetime(),
               memory_ids: $memory_ids, helped: $helped})
CREATE (u)-[:OF]->(q)
WITH u
CALL (u) {
  UNWIND $memory_ids AS mid
  MATCH (r:Record {id: mid})
  USING INDEX SEEK r:Record(id)
  CREATE (u)-[:USED]->(r)
}
RETURN u.action_id AS action_id
