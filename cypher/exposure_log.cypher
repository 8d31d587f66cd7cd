// Which retrieved memories an action was shown (exposure), for later attribution.
MATCH (q:Retrieval {id: $retrieval_id})
USING INDEX SEEK q:Retrieval(id)
CREATE (e:Exposure {retrieval_id: $retrieval_id, action_id: $action_id, at: $at,
                    written_at: datetime(),
                    memory_ids: $memory_ids})
CREATE (e)-[:OF]->(q)
WITH e
CALL (e) {
  UNWIND $memory_ids AS mid
  MATCH (r:Record {id: mid})
  USING INDEX SEEK r:Record(id)
  CREATE (e)-[:EXPOSED]->(r)
}
RETURN e.action_id AS action_id
