// A declared lifecycle transition with who, why and when (docs/spec/write-path.md).
// A statement of the agent loop: planned once, kept (graphmem.db.catalogue, "Plans").
CYPHER replan=skip
MATCH (r:Record {id: $record_id})
USING INDEX SEEK r:Record(id)
CREATE (t:Transition {record_id: $record_id, kind: $kind, by: $by, reason: $reason, at: $at})
CREATE (t)-[:ON]->(r)
RETURN count(t) AS logged
