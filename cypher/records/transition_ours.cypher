// Whether the call $token logged a transition on record $id already: an earlier run of its
// transaction function committed, though its acknowledgement was lost
// (graphmem.db.base.StoreBase.transaction, knows_its_commit).
// A statement of the agent loop: planned once, kept (graphmem.db.catalogue, "Plans").
CYPHER replan=skip
MATCH (t:Transition {record_id: $id})
USING INDEX SEEK t:Transition(record_id)
WHERE t.token = $token
RETURN count(t) > 0 AS ours
